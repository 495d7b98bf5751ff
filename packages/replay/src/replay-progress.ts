import { z } from 'zod';

/** How far a replay has got: recorded entries read, checks queued, decisions back. */
export const ReplayProgressSchema = z.object({
  /** Recorded entries taken from the log so far (at most the replay's limit). */
  read: z.number().int(),
  /** Checks queued (entries recorded with their job). */
  submitted: z.number().int(),
  /** Replayed decisions that have arrived. */
  decided: z.number().int(),
  /** The range held more entries than the limit: the diff covers the oldest `read`. */
  truncated: z.boolean(),
});
export type ReplayProgress = z.infer<typeof ReplayProgressSchema>;
