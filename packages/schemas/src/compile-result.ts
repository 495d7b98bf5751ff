import { z } from 'zod';

/** The outcome of replaying a policy's labelled examples through a program. */
export const VerificationReportSchema = z.object({
  passed: z.boolean(),
  total: z.number().int(),
  passedCount: z.number().int(),
  failing: z.array(
    z.object({
      exampleId: z.string(),
      expected: z.union([z.literal(0), z.literal(1)]),
      got: z.union([z.literal(0), z.literal(1)]).nullable(),
      error: z.string().optional(),
      missingReasons: z.array(z.string()).optional(),
    }),
  ),
  verifiedAt: z.string(),
  /**
   * Evidence from real traffic: the latest finished replay of recorded decisions with this
   * program's policy version (POST /v1/policies/{id}/replays), beside the labelled examples.
   */
  replay: z
    .object({
      id: z.string(),
      policyDigest: z.string(),
      since: z.string().nullable(),
      until: z.string().nullable(),
      compared: z.number().int(),
      flips: z.number().int(),
      changes: z.record(z.string(), z.number().int()),
      truncated: z.boolean(),
      finishedAt: z.string(),
    })
    .optional(),
});
export type VerificationReport = z.infer<typeof VerificationReportSchema>;

/** The outcome of compiling (or verifying a supplied) guard program for one policy version. */
export const CompileResultSchema = z.object({
  id: z.string(),
  policy: z.object({ id: z.string(), version: z.string(), digest: z.string(), programDigest: z.string() }),
  /**
   * promoted: verified and now used for every check; failed: an example failed; error: could not
   * compile; rails-only: the policy has no guard requests and no program, so there is nothing to
   * compile (its rails, checked when it was stored, decide every check; see `message`).
   */
  status: z.enum(['promoted', 'failed', 'error', 'rails-only']),
  /** What a `rails-only` result means for this policy, in words. */
  message: z.string().optional(),
  report: VerificationReportSchema.nullable(),
  code: z.string().nullable(),
  plan: z.string().nullable(),
  attempts: z.number(),
  debugRounds: z.number(),
  usage: z.object({ calls: z.number(), promptTokens: z.number(), completionTokens: z.number() }),
  timings: z.record(z.string(), z.number()),
  traceId: z.string(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** On `failed`: the program promoted earlier still passes the same examples, so it keeps deciding. */
  keptPrevious: z.boolean().optional(),
  createdAt: z.string(),
});
export type CompileResult = z.infer<typeof CompileResultSchema>;
