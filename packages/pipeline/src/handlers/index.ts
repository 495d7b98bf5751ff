import type { Stage, PipelineState, PipelineJobKind } from '@guardagent/queue';
import type { PipelineDeps } from '../pipeline-deps';
import type { StageOutcome } from '../stage-outcome';
import { handleCheck } from './check';
import { handleRun } from './run';
import { handleVerify } from './verify';
import { handleRetrieve } from './retrieve';
import { handlePlan } from './plan';
import { handleCodegen } from './codegen';
import { handleDebug } from './debug';

export type PipelineHandler = (state: PipelineState, deps: PipelineDeps) => Promise<StageOutcome>;

/**
 * Which handler serves each (queue, job kind) whose job carries a guard job's state. Typed
 * against the queue catalog (PipelineJobKind of StageJobData): every such kind has a handler,
 * and no other kind can get one. The side jobs (a chunk of checks, archive, feedback) are served
 * by the stage worker's SIDE_JOB_HANDLERS.
 */
export const PIPELINE_HANDLERS: { [S in Stage]: Record<PipelineJobKind<S>, PipelineHandler> } = {
  executor: { check: handleCheck, run: handleRun, verify: handleVerify },
  memory: { retrieve: handleRetrieve },
  planner: { plan: handlePlan },
  codegen: { codegen: handleCodegen },
  debugger: { debug: handleDebug },
};

export { handleCheck, handleRun, handleVerify, handleRetrieve, handlePlan, handleCodegen, handleDebug };
export { handleArchive, handleFeedback } from './memory-side-jobs';
