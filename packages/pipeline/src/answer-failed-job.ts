import type { Job } from 'bullmq';
import { errorMessage } from '@guardagent/errors';
import { CHECK_CHUNK_JOB, checksCarried, type PipelineState, type Stage } from '@guardagent/queue';
import { finalizeCompile, finalizeDecision, finalizeDecisions, type FinalizeDeps } from './finalize';
import { salvageState, salvageStateOf } from './salvage-state';
import { guardError } from './stage-outcome';
import type { Logger } from '@guardagent/telemetry';

/** maxStalledCount of every stage worker: one re-run after an executor died under a job. */
export const STALLS_BEFORE_QUARANTINE = 1;

export interface AnswerFailedJobDeps extends FinalizeDeps {
  logger: Logger;
}

/** Whether a stage job has a caller to answer: memory's archive and feedback jobs have none. */
export function expectsAnswer(stage: Stage, jobName: string): boolean {
  return !(stage === 'memory' && (jobName === 'archive' || jobName === 'feedback'));
}

/**
 * Answer a job BullMQ failed for good (not one it will retry), fail-closed under any failMode:
 * the infrastructure gave up on it, so no guard decided. A decision stored earlier stands (answers
 * are written first-wins). Used by the worker's 'failed' handler, the failed-job sweeper, and the
 * gateway's result read, so that whichever sees the job first answers it. Resolves to whether it
 * wrote an answer; never throws (a failed write is logged, and the sweeper tries again).
 */
export async function answerFailedJob(deps: AnswerFailedJobDeps, stage: Stage, job: Job, reason: string): Promise<boolean> {
  try {
    if ((await job.getState()) !== 'failed') return false; // it will be retried
    if (!expectsAnswer(stage, job.name)) return false;
    if (stage === 'executor' && job.name === CHECK_CHUNK_JOB) return await answerFailedChunk(deps, job, reason);
    const state = salvageState(job);
    if (!state) return false;
    // stalledCounter counts the times the job's worker stopped renewing its lock (it died or hung)
    // while running it; past maxStalledCount BullMQ fails the job without running it again.
    const error = failureOf(deps, stage, job, reason);
    if (state.purpose === 'compile') {
      await finalizeCompile(deps, state, { status: 'error', report: null, error });
    } else {
      const outcome = guardError(state, error, 'closed');
      if (outcome.kind === 'decision') await finalizeDecision(deps, outcome.state, outcome.draft);
    }
    return true;
  } catch (error) {
    deps.logger.error({ stage, job: job.id, err: errorMessage(error) }, 'could not answer a failed job');
    return false;
  }
}

/** Why a job failed for good, as a guard error's code and message. */
function failureOf(deps: AnswerFailedJobDeps, stage: Stage, job: Job, reason: string): { code: string; message: string } {
  // stalledCounter counts the times the job's worker stopped renewing its lock (it died or hung)
  // while running it; past maxStalledCount BullMQ fails the job without running it again.
  const quarantined = job.stalledCounter > STALLS_BEFORE_QUARANTINE;
  if (quarantined) deps.logger.warn({ stage, job: job.id, stalls: job.stalledCounter }, 'job quarantined');
  return quarantined
    ? { code: 'JOB_QUARANTINED', message: `the job stalled ${job.stalledCounter} times on the ${stage} stage: each executor running it died or froze, so it is not run again` }
    : { code: 'JOB_FAILED', message: `the ${stage} stage gave up on the job: ${reason}` };
}

/**
 * A failed chunk's checks, each answered fail-closed in one round trip. A check decided before the
 * chunk failed keeps its decision (first wins). A check an earlier run routed on to the LLM path
 * is answered here too, fail-closed, unless its own decision was stored first: a failed job keeps
 * no record of what it routed.
 */
async function answerFailedChunk(deps: AnswerFailedJobDeps, job: Job, reason: string): Promise<boolean> {
  const raws = checksCarried(job);
  const error = failureOf(deps, 'executor', job, reason);
  const ended = raws
    .map((raw) => salvageStateOf(raw))
    .filter((state): state is PipelineState => state !== null && state.purpose === 'check')
    .map((state) => guardError(state, error, 'closed'))
    .flatMap((outcome) => (outcome.kind === 'decision' ? [{ state: outcome.state, draft: outcome.draft }] : []));
  if (ended.length === 0) return false;
  await finalizeDecisions(deps, ended);
  return true;
}
