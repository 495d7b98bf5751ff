import type { StageOutcome } from './stage-outcome';

/** What a stage job returns once it has stored its check's decision (the outcome's kind). */
export const DECIDED_RETURN_VALUE: StageOutcome['kind'] = 'decision';

/**
 * Whether a completed stage job stored its check's decision before completing: the stage worker
 * returns the outcome's kind, and a decision is stored before the job completes. So a job that
 * says so but whose decision is missing lost it to a Redis rollback (see DECISION_LOST).
 */
export function storedADecision(job: { returnvalue?: unknown }): boolean {
  return job.returnvalue === DECIDED_RETURN_VALUE;
}
