import { z } from 'zod';
import { DerivedJsonObjectSchema } from './json';

export const UsageSchema = z.object({
  calls: z.number().int().nonnegative(),
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof UsageSchema>;
export const emptyUsage = (): Usage => ({ calls: 0, promptTokens: 0, completionTokens: 0 });

/** What the rails redacted (see Decision.redacted). */
export const RedactedSchema = z.object({
  input: z.string().optional(),
  output: z.string().optional(),
  message: z.string().optional(),
  args: DerivedJsonObjectSchema.optional(),
});
export type Redacted = z.infer<typeof RedactedSchema>;

/** The guard's answer for one job. Stored by id before it is announced. */
export const DecisionSchema = z.object({
  id: z.string(),
  /** `programDigest` names the verified program that decided (compiled mode); read it from the registry. */
  policy: z.object({ id: z.string(), version: z.string(), digest: z.string(), programDigest: z.string().optional() }),
  decision: z.enum(['allow', 'deny', 'pending']),
  /** `guard_error`: the guard could not decide; `decision` then follows the policy's failMode. */
  status: z.enum(['ok', 'guard_error']),
  /** Which layer decided: deterministic rails, the GuardAgent code, or neither (guard_error). */
  layer: z.enum(['rails', 'guardagent', 'none']),
  /** How the GuardAgent layer ran, when it ran. */
  mode: z.enum(['compiled', 'per-request']).nullable(),
  reasons: z.array(z.string()),
  /** Rail rule ids that fired. */
  rules: z.array(z.string()),
  details: z.record(z.string(), z.unknown()),
  plan: z.string().nullable(),
  /** The per-request code that decided; null in compiled mode (see `policy.programDigest`). */
  code: z.string().nullable(),
  /** Executions of guard code (1 + debugging rounds); 0 when no code ran. */
  attempts: z.number().int().nonnegative(),
  /** Milliseconds per stage (`rails`, `retrieve`, `plan`, `codegen`, `execute`, `debug`, `queue`, `total`). */
  timings: z.record(z.string(), z.number()),
  usage: z.object({ calls: z.number(), promptTokens: z.number(), completionTokens: z.number() }),
  traceId: z.string(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /**
   * Text with PII redacted by the rails, when any was. A message action's text is under `message`
   * (and also under its side, `input` or `output`, when the job's own field there had none). A tool
   * call's arguments with the PII the input filter redacts replaced are under `args`: the caller
   * runs the tool with these, never with the arguments it proposed (guardTool and the adapters do).
   */
  redacted: RedactedSchema.optional(),
  /**
   * What the policy's shadow version (`enforcement: shadow`) would have decided; the decision
   * above is the enforcing version's (`policy`). `agrees` is null when the shadow could not decide.
   */
  shadow: z
    .object({
      policy: z.object({ id: z.string(), version: z.string(), digest: z.string(), programDigest: z.string().optional() }),
      decision: z.enum(['allow', 'deny', 'pending']).nullable(),
      status: z.enum(['ok', 'guard_error', 'undecided']),
      reasons: z.array(z.string()),
      rules: z.array(z.string()),
      agrees: z.boolean().nullable(),
    })
    .optional(),
  /**
   * For `pending`: the single-use token that approves exactly this call, and its id (the token's
   * sha256, which names the held call in approval lists, webhooks and routes but is no token).
   */
  approval: z.object({ token: z.string(), id: z.string().optional(), expiresAt: z.string() }).optional(),
  createdAt: z.string(),
});
export type Decision = z.infer<typeof DecisionSchema>;
