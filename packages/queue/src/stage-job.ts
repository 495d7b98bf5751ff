import { z } from 'zod';
import type { Stage } from './stages';
import { PipelineStateSchema } from './pipeline-state';
import { FeedbackCaseSchema } from '@guardagent/schemas';
import type { CheckChunkJob } from './check-chunk';

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

/**
 * The catalog: the job kinds each queue accepts, and what a job of each kind carries. QueueSet.add
 * takes exactly this, and the pipeline's handler tables are checked against it (one handler per
 * kind, no other). A job that does not parse against its kind's schema never reaches a handler: it
 * ends as a guard_error decision.
 */
export interface StageJobData {
  /**
   * check: a new guard job (rails, fast path, or route on); check-chunk: many new guard jobs in one
   * queue job; run: execute per-request code; verify: run a program on the policy's examples.
   */
  executor: { check: PipelineJob; 'check-chunk': CheckChunkJob; run: PipelineJob; verify: PipelineJob };
  /** retrieve: attach the k nearest demonstrations; archive/feedback are side jobs. */
  memory: { retrieve: PipelineJob; archive: ArchiveJob; feedback: FeedbackJob };
  planner: { plan: PipelineJob };
  codegen: { codegen: PipelineJob };
  debugger: { debug: PipelineJob };
}

export type StageJobKind<S extends Stage> = keyof StageJobData[S] & string;

/** The data of a job of kind K on queue S. */
export type StageJobDataOf<S extends Stage, K extends StageJobKind<S>> = StageJobData[S][K];
/** The kinds whose job carries a guard job's state on its way through the stages (next() goes to these). */
export type PipelineJobKind<S extends Stage> = { [K in StageJobKind<S>]: StageJobDataOf<S, K> extends PipelineJob ? K : never }[StageJobKind<S>];
/** A hand-over to a stage: the stage and one of its kinds that carry a guard job's state. */
export type PipelineHop = { [S in Stage]: { stage: S; jobKind: PipelineJobKind<S> } }[Stage];
/** The other kinds: side jobs with data of their own (a chunk of checks, an archived case, feedback). */
export type SideJobKind<S extends Stage> = Exclude<StageJobKind<S>, PipelineJobKind<S>>;
/** A job for `stage`, of any of its kinds, with that kind's data. */
export type StageJobOf<S extends Stage> = { [K in StageJobKind<S>]: { kind: K; data: StageJobDataOf<S, K>; jobId: string } }[StageJobKind<S>];
