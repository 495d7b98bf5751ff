import { z } from 'zod';
import { JsonObjectSchema } from './json';

/**
 * The `rails` section of a policy: deterministic checks at the input, tool and output
 * boundaries. Conditions are CEL expressions over `subject`, `args`, `tool` (never eval).
 */
const RuleId = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'rule ids use letters, digits, _ . : -');
const CelExpression = z.string().min(1).max(4096);

export const ToolRuleSchema = z
  .object({
    /** JSON Schema for the call's `args`; unknown properties are rejected unless the schema says otherwise. */
    args: JsonObjectSchema.optional(),
    /** Every condition must hold, else deny. */
    authorize: z
      .array(z.object({ id: RuleId, when: CelExpression, message: z.string().max(1000) }).strict())
      .default([]),
    /** If any condition holds, the call is held for approval (`decision: pending`). */
    requireApproval: z
      .array(z.object({ id: RuleId, when: CelExpression, message: z.string().max(1000) }).strict())
      .default([]),
    /** At most `max` calls per subject per `windowSeconds` (sliding window shared by all executors). */
    rateLimit: z
      .object({
        id: RuleId.optional(),
        max: z.number().int().positive(),
        windowSeconds: z.number().int().positive().max(86_400 * 31),
      })
      .strict()
      .optional(),
  })
  .strict();

export const PiiKindSchema = z.enum(['email', 'phone', 'card', 'iban', 'ssn', 'ip', 'secret']);
export type PiiKind = z.infer<typeof PiiKindSchema>;

export const PiiFilterSchema = z
  .object({
    kinds: z.array(PiiKindSchema).min(1).default(['email', 'phone', 'card', 'iban', 'ssn', 'ip', 'secret']),
    action: z.enum(['redact', 'deny', 'log']).default('redact'),
  })
  .strict();

export const InjectionFilterSchema = z
  .object({
    /** Deny when the injection score reaches this value (0..1). */
    threshold: z.number().min(0).max(1).default(0.5),
  })
  .strict();

export const RailsConfigSchema = z
  .object({
    /** Per role: the tools it may call. Anything unlisted is denied (allow-list). */
    roles: z.record(z.string(), z.object({ tools: z.array(z.string().min(1)).default([]) }).strict()).default({}),
    /** Per tool: argument schema, authorization, approval and rate limit. */
    tools: z.record(z.string(), ToolRuleSchema).default({}),
    input: z
      .object({ pii: PiiFilterSchema.optional(), injection: InjectionFilterSchema.optional() })
      .strict()
      .default({}),
    output: z
      .object({ pii: PiiFilterSchema.extend({ action: z.enum(['redact', 'deny']).default('redact') }).optional() })
      .strict()
      .default({}),
    /**
     * A job that declares no `action` (only input/output text) says nothing the allow-list can
     * check. A policy with rails and no guard requests denies it unless this is true.
     */
    allowPlainJobs: z.boolean().default(false),
    approval: z
      .object({ ttlSeconds: z.number().int().positive().max(86_400 * 7).default(3600) })
      .strict()
      .default({ ttlSeconds: 3600 }),
  })
  .strict();
export type RailsConfig = z.infer<typeof RailsConfigSchema>;
export type ToolRule = z.infer<typeof ToolRuleSchema>;
