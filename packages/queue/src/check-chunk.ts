import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { PipelineState } from './pipeline-state';

/** The executor job kind that carries many guard checks (each as it would travel alone). */
export const CHECK_CHUNK_JOB = 'check-chunk';

/** Most checks one chunk job may carry: bounds a job's size and how long one job holds a worker. */
export const MAX_CHUNK_CHECKS = 500;

/**
 * A chunk job's data. Each check is parsed on its own (PipelineStateSchema), so one malformed
 * check ends as its own guard_error instead of failing the chunk's other checks.
 */
export const CheckChunkJobSchema = z.object({
  checks: z.array(z.unknown()).min(1).max(MAX_CHUNK_CHECKS),
});
export type CheckChunkJob = { checks: PipelineState[] };

/** A fresh chunk's job id, fixed before the first try so a retried add joins the first. */
export function newChunkJobId(): string {
  return `chunk-${randomUUID()}`;
}

/**
 * The job id of a chunk of known checks (a batch's): the same checks give the same id, so a
 * batch resumed after a crash re-adds a chunk it had already queued as the same job (a no-op).
 */
export function chunkJobIdOf(checks: readonly PipelineState[]): string {
  const hash = createHash('sha256');
  for (const check of checks) hash.update(`${check.tenant}\u0000${check.jobId}\u0000`);
  return `chunk-${hash.digest('hex').slice(0, 32)}`;
}

/**
 * The checks an executor job carries, as stored (unvalidated): a chunk job's list, or a lone
 * `check` job's state.
 */
export function checksCarried(job: { name: string; data: unknown }): unknown[] {
  const data = job.data as { checks?: unknown; state?: unknown } | null | undefined;
  if (job.name === CHECK_CHUNK_JOB) return Array.isArray(data?.checks) ? data.checks : [];
  return data?.state === undefined ? [] : [data.state];
}
