import { createHash, randomBytes } from 'node:crypto';

const TOKEN_PREFIX = 'apv_';
const APPROVAL_ID = /^[0-9a-f]{64}$/;

/** 256 random bits, URL-safe. */
export function newApprovalToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** Stores key tokens by hash: a leaked store (or key listing) does not leak usable tokens. */
export function approvalTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Cheap shape check before any store round trip; the store still decides. */
export function looksLikeApprovalToken(token: unknown): token is string {
  return typeof token === 'string' && token.length > TOKEN_PREFIX.length && token.length <= 128 && token.startsWith(TOKEN_PREFIX);
}

/** Whether `value` has the shape of an approval id (the token's sha256, lower-case hex). */
export function looksLikeApprovalId(value: unknown): value is string {
  return typeof value === 'string' && APPROVAL_ID.test(value);
}

/**
 * The approval id a token or an id names: a token is hashed, an id is itself. Null for anything
 * else. An id approves, rejects and reads a held call, but is never accepted as the token itself.
 */
export function approvalIdOf(tokenOrId: string): string | null {
  if (looksLikeApprovalToken(tokenOrId)) return approvalTokenHash(tokenOrId);
  return looksLikeApprovalId(tokenOrId) ? tokenOrId : null;
}
