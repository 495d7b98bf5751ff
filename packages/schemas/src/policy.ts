import { z } from 'zod';
import { JsonObjectSchema, TextOrJsonSchema } from './json';
import { SubjectSchema } from './subject';
import { ActionSchema } from './action';
import { RailsConfigSchema } from './rails-config';

export const POLICY_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const PolicyIdSchema = z
  .string()
  .regex(POLICY_ID_PATTERN, 'policy ids are 1-128 letters, digits, . _ - (starting with a letter or digit)');

export const TOOLBOX_PACKS = ['core', 'ehragent', 'seeact', 'rails'] as const;
export const ToolboxPackSchema = z.enum(TOOLBOX_PACKS);
export type ToolboxPack = z.infer<typeof ToolboxPackSchema>;

/** A worked case shown to the LLM: the planner sees input/output/plan, codegen also the code. */
export const DemonstrationSchema = z
  .object({
    id: z.string().max(128).optional(),
    input: z.string(),
    output: z.string(),
    plan: z.string(),
    code: z.string(),
  })
  .strict();
export type Demonstration = z.infer<typeof DemonstrationSchema>;

/** A labelled case: 1 = must deny, 0 = must allow. Programs are verified against these. */
export const LabelledExampleSchema = z
  .object({
    id: z.string().max(128).optional(),
    input: TextOrJsonSchema,
    output: TextOrJsonSchema.default(''),
    context: JsonObjectSchema.optional(),
    subject: SubjectSchema.optional(),
    action: ActionSchema.optional(),
    label: z.union([z.literal(0), z.literal(1)]),
    /** Each expected reason must appear (as a substring) among the decision's reasons. */
    reasons: z.array(z.string()).optional(),
  })
  .strict();
export type LabelledExample = z.infer<typeof LabelledExampleSchema>;

export const PolicyLimitsSchema = z
  .object({
    cpuMs: z.number().int().positive().max(60_000),
    wallMs: z.number().int().positive().max(120_000),
    memoryMb: z.number().int().min(8).max(1024),
    maxDebugRounds: z.number().int().min(0).max(10),
  })
  .partial()
  .strict();

export const PolicySchema = z
  .object({
    id: PolicyIdSchema,
    version: z.union([z.string().min(1).max(64), z.number()]).transform(String).default('1'),
    description: z.string().max(10_000).optional(),
    /** I_s: what the guarded agent is and does. */
    specification: z.string().max(200_000).default(''),
    /** I_r: the guard requests in plain language. May be left out when `rails` decide everything. */
    requests: z.string().max(200_000).optional(),
    toolbox: z.array(ToolboxPackSchema).min(1).default(['core']),
    mode: z.enum(['per-request', 'compiled', 'auto']).default('auto'),
    failMode: z.enum(['closed', 'open']).default('closed'),
    demonstrations: z.array(DemonstrationSchema).max(10_000).default([]),
    /** How many demonstrations retrieval hands to the LLM. */
    k: z.number().int().min(0).max(20).default(2),
    examples: z.array(LabelledExampleSchema).max(100_000).default([]),
    /** A guard program (body of an async function of input, output, context), supplied or compiled. */
    program: z.string().max(500_000).optional(),
    rails: RailsConfigSchema.optional(),
    limits: PolicyLimitsSchema.optional(),
    /**
     * Record this policy's decisions, with each job as the guard saw it, in the tenant's decision
     * log (`GUARDAGENT_DECISION_LOG=all` records every policy's). Left out of the program digest.
     */
    decisionLog: z.boolean().optional(),
    /**
     * `shadow`: put this version beside the policy id's enforcing one instead of replacing it. It
     * decides every check the enforcing version sees (rails and a verified program; no LLM), and
     * its decision is recorded in the caller's decision (`shadow`) and counted in /metrics, but
     * the caller gets the enforcing version's. Putting an enforcing version ends the shadow.
     */
    enforcement: z.enum(['enforce', 'shadow']).optional(),
  })
  .strict()
  .superRefine((policy, ctx) => {
    if (!policy.requests?.trim() && !policy.rails) {
      ctx.addIssue({
        code: 'custom',
        path: ['requests'],
        message: 'a policy needs guard requests, or a rails section that decides everything',
      });
    }
  });
export type Policy = z.output<typeof PolicySchema>;
export type PolicyInput = z.input<typeof PolicySchema>;
