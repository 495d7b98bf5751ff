import type { Redis } from 'ioredis';
import { IdempotencyConflictError } from '@guardagent/errors';
import { keys } from '@guardagent/queue';
import { canonicalJson, sha256, type GuardJob } from '@guardagent/schemas';

/** What an idempotency key stands for: the whole job (not the key) under one policy version. */
export function jobBindingHash(job: GuardJob, policyDigest: string): string {
  const { idempotencyKey: _key, policy: _policy, ...content } = job;
  return sha256(canonicalJson({ policyDigest, ...content }));
}

/**
 * Binds an idempotency key to the job it first came with, for as long as its decision is kept.
 * A re-submit of the same job passes (and joins the first one's decision); a different job under
 * the same key throws IdempotencyConflictError. One SET NX, then a GET only on a repeat.
 *
 * Resolves to the first submission's submit time (the binding keeps it after the hash): a
 * re-submit that runs again (say, in another chunk while the first is still running) is then the
 * same call to the rails, which count a call once per job id and submit time.
 */
export async function bindIdempotencyKey(
  redis: Redis,
  prefix: string,
  target: { tenant: string; jobId: string; idempotencyKey: string; hash: string; submittedAt: number; ttlSeconds: number },
): Promise<number> {
  const key = keys(prefix).idempotencyBinding(target.tenant, target.jobId);
  if ((await redis.set(key, `${target.hash}:${target.submittedAt}`, 'EX', target.ttlSeconds, 'NX')) === 'OK') return target.submittedAt;
  const bound = await redis.get(key);
  // Expired between the two calls: the earlier job is gone, so this one may take the key.
  if (bound === null) return bindIdempotencyKey(redis, prefix, target);
  const [hash, firstAt] = bound.split(':');
  if (hash !== target.hash) throw new IdempotencyConflictError(target.idempotencyKey);
  // A binding written before submit times were kept has none: this submission's stands.
  const at = Number(firstAt);
  return Number.isFinite(at) && firstAt !== undefined ? at : target.submittedAt;
}
