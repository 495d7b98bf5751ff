import type { Redis } from 'ioredis';
import { STAGES, readSandboxPoolReports, type QueueSet } from '@guardagent/queue';

export interface Readiness {
  ready: boolean;
  redis: 'ok' | 'unreachable';
  workers: Record<string, number>;
  missing: string[];
  /**
   * The live executors' sandbox pools: how many report, and which cannot run guard code (no
   * ready sandbox worker for longer than their GUARDAGENT_SANDBOX_UNSERVED_MS).
   */
  sandbox: { pools: number; unserving: string[] };
}

/**
 * Ready when Redis answers, every stage of every shard has at least one live worker, and no live
 * executor's sandbox pool has been without a ready worker past its bound (its checks would wait
 * or fail: a pool whose workers cannot start, or die as fast as they start). BullMQ names each
 * worker's blocking connection after its queue, so `CLIENT LIST` (queue.getWorkers) shows exactly
 * the workers connected right now; a crashed worker's connection disappears with it. `workers`
 * counts a stage's workers over all shards' queues. `prefix` is the deployment's (the executors
 * report their pools under it).
 */
export async function checkReadiness(redis: Redis, shards: readonly QueueSet[], prefix: string, timeoutMs = 2000): Promise<Readiness> {
  const workers: Record<string, number> = {};
  const missingSomewhere = new Set<string>();
  const sandbox: Readiness['sandbox'] = { pools: 0, unserving: [] };
  try {
    await withTimeout(redis.ping(), timeoutMs);
    const pools = await withTimeout(readSandboxPoolReports(redis, prefix), timeoutMs);
    sandbox.pools = pools.length;
    sandbox.unserving = pools.filter((pool) => pool.unserving).map((pool) => pool.executor);
    const counts = await withTimeout(Promise.all(shards.map((queues) => Promise.all(STAGES.map((stage) => queues.queue(stage).getWorkersCount())))), timeoutMs);
    STAGES.forEach((stage, i) => {
      workers[stage] = counts.reduce((sum, shard) => sum + shard[i], 0);
      if (counts.some((shard) => shard[i] === 0)) missingSomewhere.add(stage);
    });
  } catch {
    return { ready: false, redis: 'unreachable', workers, missing: [...STAGES], sandbox };
  }
  const missing = STAGES.filter((stage) => missingSomewhere.has(stage));
  return { ready: missing.length === 0 && sandbox.unserving.length === 0, redis: 'ok', workers, missing, sandbox };
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
