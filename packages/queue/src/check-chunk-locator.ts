import type { Redis } from 'ioredis';
import { keys } from './keys';
import type { PipelineState } from './pipeline-state';
import { COMPLETED_JOB_AGE_SECONDS } from './queue-set';

/** Kept as long as a completed job is (after that, the chunk job it names is gone anyway). */
const LOCATOR_TTL_SECONDS = COMPLETED_JOB_AGE_SECONDS;

/**
 * Record which chunk job carries each check (one key per check, one round trip), written before
 * the chunk job is added: whoever finds the job can find its checks' records.
 */
export async function recordCheckChunks(redis: Redis, prefix: string, chunks: ReadonlyArray<{ jobId: string; checks: readonly PipelineState[] }>): Promise<void> {
  const k = keys(prefix);
  const pipeline = redis.pipeline();
  for (const { jobId, checks } of chunks) {
    for (const check of checks) pipeline.set(k.checkChunk(check.tenant, check.jobId), jobId, 'EX', LOCATOR_TTL_SECONDS);
  }
  const replies = (await pipeline.exec()) ?? [];
  const failed = replies.find(([error]) => error);
  if (failed) throw failed[0];
}

/** The chunk job that carries a check, if one was recorded (see QueueTransportOptions.locateChecks). */
export async function chunkJobOfCheck(redis: Redis, prefix: string, tenant: string, id: string): Promise<string | null> {
  return redis.get(keys(prefix).checkChunk(tenant, id));
}
