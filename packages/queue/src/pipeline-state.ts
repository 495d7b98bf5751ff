import { z } from 'zod';
import { ActionSchema, DecisionSchema, DemonstrationSchema, RedactedSchema, SubjectSchema, UsageSchema, jsonShapeIssue, sizeIssue } from '@guardagent/schemas';

const ShadowResultSchema = DecisionSchema.shape.shadow.unwrap();

/** A labelled example the program got wrong during verification; the debugger sees these. */
export const VerificationFailureSchema = z.object({
  exampleId: z.string(),
  input: z.unknown(),
  output: z.unknown(),
  expected: z.union([z.literal(0), z.literal(1)]),
  got: z.union([z.literal(0), z.literal(1)]).nullable(),
  error: z.string().optional(),
  missingReasons: z.array(z.string()).optional(),
});
export type VerificationFailure = z.infer<typeof VerificationFailureSchema>;

/**
 * The job as it travels between stages. Its input/output/context were validated by GuardJobSchema
 * at submit, and each hop reads them back with JSON.parse, which only yields JSON: they are not
 * re-validated as JSON at every hop. Their size is checked again here (cheaply: a walk that stops
 * at the limit), because a job can also reach the queue without going through submit; so are
 * forbidden keys and nesting depth (one more linear walk).
 */
const sized = (what: string) => (v: unknown, ctx: z.RefinementCtx) => {
  const issue = sizeIssue(v);
  if (issue) ctx.addIssue({ code: 'custom', message: `${what} is ${issue}` });
  const shape = jsonShapeIssue(v);
  if (shape) ctx.addIssue({ code: 'custom', message: `${what}: ${shape.message}`, path: shape.path });
};
export const StageJobPayloadSchema = z.object({
  input: z.custom<unknown>((v) => v !== undefined, 'input is required').superRefine(sized('input')),
  output: z.custom<unknown>((v) => v !== undefined, 'output is required').superRefine(sized('output')),
  context: z.record(z.string(), z.unknown()).default({}).superRefine(sized('context')),
  subject: SubjectSchema.optional(),
  action: ActionSchema.optional(),
});
export type StageJobPayload = z.infer<typeof StageJobPayloadSchema>;

/**
 * Everything a guard job carries from stage to stage. Stages are stateless: whatever one
 * stage learns (demonstrations, plan, code, errors, timings) travels on in here.
 */
export const PipelineStateSchema = z.object({
  v: z.literal(1),
  jobId: z.string().min(1),
  tenant: z.string().min(1),
  purpose: z.enum(['check', 'compile']),
  /** A compile started by auto mode under the per-digest compile lock (which it must release). */
  backgroundCompile: z.boolean().default(false),
  policy: z.object({ id: z.string(), version: z.string(), digest: z.string(), programDigest: z.string() }),
  job: StageJobPayloadSchema,
  /** Pub/sub channel of the client waiting for this job, if any. */
  replyTo: z.string().nullable(),
  batchId: z.string().nullable(),
  /** W3C trace context of the job's root span. */
  trace: z.record(z.string(), z.string()),
  submittedAt: z.number(),
  /** Hop counter: next-stage BullMQ job ids derive from it, so a retried hop never duplicates work. */
  step: z.number().int().nonnegative(),
  demonstrations: z.array(DemonstrationSchema),
  plan: z.string().nullable(),
  code: z.string().nullable(),
  attempts: z.number().int().nonnegative(),
  debugRounds: z.number().int().nonnegative(),
  lastError: z.object({ kind: z.string(), message: z.string() }).nullable(),
  failures: z.array(VerificationFailureSchema).nullable(),
  timings: z.record(z.string(), z.number()),
  usage: UsageSchema,
  /**
   * The job's payload (input, output, context...) was stored once under `jobPayload` when the job
   * first hopped to another stage; `job` then travels empty and each stage reads it back, instead of
   * every hop job holding (and BullMQ keeping for an hour) its own copy.
   */
  jobStored: z.boolean().default(false),
  /** The policy asks for its decisions to be recorded in the tenant's decision log (policy.decisionLog). */
  logDecision: z.boolean().default(false),
  /** The policy id's shadow version (enforcement: shadow), decided beside the enforcing one at the check step. */
  shadow: z.object({ id: z.string(), version: z.string(), digest: z.string(), programDigest: z.string() }).nullable().default(null),
  /** What the shadow version decided, carried to the final decision. */
  shadowResult: ShadowResultSchema.nullable().default(null),
  /**
   * The replay this check belongs to (POST /v1/policies/{id}/replays), or null for live traffic.
   * A replayed check is never recorded in the decision log, counts rate limits in the replay's own
   * windows and issues no approval token: replaying cannot touch what live calls see.
   */
  replayId: z.string().nullable().default(null),
  rails: z
    .object({
      rules: z.array(z.string()),
      reasons: z.array(z.string()),
      redacted: RedactedSchema.optional(),
    })
    .nullable(),
});
export type PipelineState = z.infer<typeof PipelineStateSchema>;
