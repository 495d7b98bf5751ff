import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new tenant API key: 32 random bytes, recognisable by its `ga_` prefix. */
export function generateApiKey(): string {
  return `ga_${randomBytes(32).toString('base64url')}`;
}

/** Keys are stored only as their sha256, so a Redis dump does not leak usable credentials. */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/** Constant-time comparison (of the hashes, so lengths never leak either). */
export function sameKey(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
