import type { StageOutcome } from './stage-outcome';

/** What a stage job returns once it has stored its check's decision (the outcome's kind). */
export const DECIDED_RETURN_VALUE: StageOutcome['kind'] = 'decision';

/**
 * Whether a completed stage job stored its check's decision before completing: the stage worker
 * returns the outcome's kind, and a decision is stored before the job completes. So a job that
 * says so but whose decision is missing lost it to a Redis rollback (see DECISION_LOST). A chunk
 * job (which returns a ChunkReturn) stored the decision of each of its checks except those it
 * routed on to the LLM path; `checkId` names the check asked about.
 */
export function storedADecision(job: { returnvalue?: unknown }, checkId?: string): boolean {
  if (job.returnvalue === DECIDED_RETURN_VALUE) return true;
  const chunk = job.returnvalue as { kind?: unknown; routed?: unknown } | null | undefined;
  if (checkId === undefined || chunk?.kind !== 'chunk' || !Array.isArray(chunk.routed)) return false;
  return !chunk.routed.includes(checkId);
}
