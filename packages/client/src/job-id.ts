import { createHash, randomUUID } from 'node:crypto';

/** Same tenant + idempotency key → same job id, so a retried submit never does the work twice. */
export function jobIdFor(tenant: string, idempotencyKey: string | undefined): string {
  if (!idempotencyKey) return randomUUID();
  return `idem-${createHash('sha256').update(`${tenant}\0${idempotencyKey}`).digest('hex').slice(0, 40)}`;
}

/** The id of one compile of a program (its digest's head, and a random tail). */
export function compileIdFor(programDigest: string): string {
  return `compile-${programDigest.slice(0, 16)}-${randomUUID().slice(0, 8)}`;
}

/**
 * Every check id jobIdFor makes: a UUID, or `idem-` and 40 hex digits. A reader that takes ids from
 * outside checks them against this first: the executor queue's job keys (`<prefix>:executor:<id>`)
 * sit beside BullMQ's own (`…:executor:events`, `…:executor:id`), which an arbitrary id could name.
 */
export const CHECK_ID_PATTERN = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|idem-[0-9a-f]{40})$/;

/** Every id compileIdFor makes (a compile's result key and its queue job are named by it). */
export const COMPILE_ID_PATTERN = /^compile-[0-9a-f]{16}-[0-9a-f]{8}$/;
