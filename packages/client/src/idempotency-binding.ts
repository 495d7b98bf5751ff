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
 */
export async function bindIdempotencyKey(
  redis: Redis,
  prefix: string,
  target: { tenant: string; jobId: string; idempotencyKey: string; hash: string; ttlSeconds: number },
): Promise<void> {
  const key = keys(prefix).idempotencyBinding(target.tenant, target.jobId);
  if ((await redis.set(key, target.hash, 'EX', target.ttlSeconds, 'NX')) === 'OK') return;
  const bound = await redis.get(key);
  // Expired between the two calls: the earlier job is gone, so this one may take the key.
  if (bound === null) return bindIdempotencyKey(redis, prefix, target);
  if (bound !== target.hash) throw new IdempotencyConflictError(target.idempotencyKey);
}
