import type { Job } from 'bullmq';
import { errorMessage } from '@guardagent/errors';
import type { Stage } from '@guardagent/queue';
import { finalizeCompile, finalizeDecision, type FinalizeDeps } from './finalize';
import type { Logger } from './logger';
import { salvageState } from './salvage-state';
import { guardError } from './stage-outcome';

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
    const state = salvageState(job);
    if (!state) return false;
    // stalledCounter counts the times the job's worker stopped renewing its lock (it died or hung)
    // while running it; past maxStalledCount BullMQ fails the job without running it again.
    const quarantined = job.stalledCounter > STALLS_BEFORE_QUARANTINE;
    const error = quarantined
      ? { code: 'JOB_QUARANTINED', message: `the job stalled ${job.stalledCounter} times on the ${stage} stage: each executor running it died or froze, so it is not run again` }
      : { code: 'JOB_FAILED', message: `the ${stage} stage gave up on the job: ${reason}` };
    if (quarantined) deps.logger.warn({ stage, job: job.id, stalls: job.stalledCounter }, 'job quarantined');
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
