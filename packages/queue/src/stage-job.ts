import { z } from 'zod';
import type { Stage } from './stages';
import { PipelineStateSchema } from './pipeline-state';
import { FeedbackCaseSchema } from '@guardagent/schemas';

/**
 * The catalog of job kinds each queue accepts. A job that does not parse against its
 * queue's schema never reaches a handler: it ends as a guard_error decision.
 */
export const STAGE_JOB_KINDS = {
  /**
   * check: a new guard job (rails, fast path, or route on); check-chunk: many new guard jobs in one
   * queue job; run: execute per-request code; verify: run a program on the policy's examples.
   */
  executor: ['check', 'check-chunk', 'run', 'verify'],
  /** retrieve: attach the k nearest demonstrations; archive/feedback are side jobs. */
  memory: ['retrieve', 'archive', 'feedback'],
  planner: ['plan'],
  codegen: ['codegen'],
  debugger: ['debug'],
} as const satisfies Record<Stage, readonly string[]>;

export type StageJobKind<S extends Stage> = (typeof STAGE_JOB_KINDS)[S][number];

export const PipelineJobSchema = z.object({ state: PipelineStateSchema });
export type PipelineJob = z.infer<typeof PipelineJobSchema>;

export const ArchiveJobSchema = z.object({
  tenant: z.string(),
  policyId: z.string(),
  candidate: z.object({
    jobId: z.string(),
    input: z.string(),
    output: z.string(),
    plan: z.string().optional(),
    code: z.string().optional(),
    decision: z.enum(['allow', 'deny', 'pending']),
    status: z.enum(['ok', 'guard_error']),
    reasons: z.array(z.string()),
  }),
});
export type ArchiveJob = z.infer<typeof ArchiveJobSchema>;

export const FeedbackJobSchema = z.object({
  tenant: z.string(),
  policyId: z.string(),
  jobId: z.string(),
  correctLabel: z.union([z.literal(0), z.literal(1)]),
  note: z.string().max(10_000).optional(),
  /**
   * The job as submitted, for decisions the memory kept no case of (compiled programs and rails
   * decide without archiving, to keep the fast path lean), with what the guard decided.
   */
  case: FeedbackCaseSchema.extend({
    decision: z.enum(['allow', 'deny', 'pending']),
    status: z.enum(['ok', 'guard_error']),
    reasons: z.array(z.string()),
  }).optional(),
});
export type FeedbackJob = z.infer<typeof FeedbackJobSchema>;
