import { z } from 'zod';
import { ActionSchema } from './action';
import { DecisionSchema } from './decision';
import { SubjectSchema } from './subject';

/**
 * One recorded decision (a line of `guardagent log export`): the job as the guard saw it (the
 * rails' redacted text, never an approval token) and what decided it, by digest. `job` is null
 * when it was too large to record (`jobOmitted` says so); such an entry cannot be replayed.
 */
export const DecisionLogEntrySchema = z.object({
  id: z.string(),
  at: z.string(),
  policy: DecisionSchema.shape.policy,
  job: z
    .object({
      input: z.unknown(),
      output: z.unknown(),
      context: z.record(z.string(), z.unknown()),
      subject: SubjectSchema.optional(),
      action: ActionSchema.optional(),
    })
    .nullable(),
  jobOmitted: z.string().optional(),
  decision: DecisionSchema.shape.decision,
  status: DecisionSchema.shape.status,
  layer: DecisionSchema.shape.layer,
  mode: DecisionSchema.shape.mode,
  reasons: z.array(z.string()),
  rules: z.array(z.string()),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** What the policy's shadow version would have decided (see Decision.shadow). */
  shadow: DecisionSchema.shape.shadow,
  timings: z.record(z.string(), z.number()),
  /** The decision's trace id (OpenTelemetry), to find its spans; absent in entries recorded before it was. */
  traceId: z.string().optional(),
});
export type DecisionLogEntry = z.infer<typeof DecisionLogEntrySchema>;
