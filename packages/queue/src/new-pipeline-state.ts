import { emptyUsage } from '@guardagent/schemas';
import type { PipelineState, StageJobPayload } from './pipeline-state';
import type { QueueSet } from './queue-set';

export interface NewStateInput {
  jobId: string;
  tenant: string;
  purpose: PipelineState['purpose'];
  backgroundCompile?: boolean;
  policy: PipelineState['policy'];
  job: StageJobPayload;
  replyTo: string | null;
  batchId?: string | null;
  trace: Record<string, string>;
  submittedAt: number;
  logDecision?: boolean;
  shadow?: PipelineState['shadow'];
  replayId?: string | null;
}

/** The state a job starts its trip through the stages with. */
export function newPipelineState(input: NewStateInput): PipelineState {
  return {
    v: 1,
    jobId: input.jobId,
    tenant: input.tenant,
    purpose: input.purpose,
    backgroundCompile: input.backgroundCompile ?? false,
    policy: input.policy,
    job: input.job,
    replyTo: input.replyTo,
    batchId: input.batchId ?? null,
    trace: input.trace,
    submittedAt: input.submittedAt,
    logDecision: input.logDecision ?? false,
    shadow: input.shadow ?? null,
    shadowResult: null,
    replayId: input.replayId ?? null,
    step: 0,
    demonstrations: [],
    plan: null,
    code: null,
    attempts: 0,
    debugRounds: 0,
    lastError: null,
    failures: null,
    timings: {},
    usage: emptyUsage(),
    jobStored: false,
    rails: null,
  };
}

/** Start a compile: a supplied program goes straight to verification, else retrieval → plan → code → verify. */
export async function enqueueCompile(queues: QueueSet, state: PipelineState, hasSuppliedProgram: boolean): Promise<void> {
  if (hasSuppliedProgram) await queues.add('executor', 'verify', { state }, state.jobId);
  else await queues.add('memory', 'retrieve', { state }, state.jobId);
}
