import { jobIdFor } from '@guardagent/client';

/**
 * The idempotency key of a recorded entry's check in a replay: per replay, so a replay never
 * meets the original check's stored decision (or another replay's), and the diff finds each
 * replayed decision from the entry alone.
 */
export function replayJobKey(replayId: string, entryId: string): string {
  return `replay:${replayId}:${entryId}`;
}

/** The check id a recorded entry gets in a replay (see replayJobKey). */
export function replayCheckId(tenant: string, replayId: string, entryId: string): string {
  return jobIdFor(tenant, replayJobKey(replayId, entryId));
}
