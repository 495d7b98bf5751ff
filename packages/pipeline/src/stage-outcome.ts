import type { HashWrite, PipelineJobKind, Stage, PipelineState } from '@guardagent/queue';
import type { Decision } from '@guardagent/schemas';
import type { VerificationReport } from '@guardagent/registry';
import { failModeFor } from './fail-mode';

/** What the guard concluded; the finalizer turns it into a stored Decision. */
export interface DecisionDraft {
  verdict: 'allow' | 'deny' | 'pending';
  status: 'ok' | 'guard_error';
  layer: Decision['layer'];
  mode: Decision['mode'];
  reasons: string[];
  rules?: string[];
  details?: Record<string, unknown>;
  error?: { code: string; message: string };
  redacted?: Decision['redacted'];
  approval?: Decision['approval'];
  /** The approval token's record: written by the script that stores this decision, never apart. */
  approvalRecord?: HashWrite;
}

export interface CompileResultDraft {
  status: 'promoted' | 'failed' | 'error';
  report: VerificationReport | null;
  error?: { code: string; message: string };
  keptPrevious?: boolean;
}

/** A hand-over to a stage, to one of its kinds that carry a guard job's state (typed per stage). */
export type NextOutcome = { [S in Stage]: { kind: 'next'; stage: S; jobKind: PipelineJobKind<S>; state: PipelineState } }[Stage];

/** A handler either hands the job to the next stage or ends it. */
export type StageOutcome =
  | NextOutcome
  | { kind: 'decision'; state: PipelineState; draft: DecisionDraft }
  | { kind: 'compile-result'; state: PipelineState; draft: CompileResultDraft }
  | { kind: 'done' };

/** Hand the job to `stage` as a job of `jobKind`: the pair is checked against the queue catalog. */
export const next = <S extends Stage>(stage: S, jobKind: PipelineJobKind<S>, state: PipelineState): StageOutcome =>
  ({ kind: 'next', stage, jobKind, state: { ...state, step: state.step + 1 } }) as NextOutcome;

export const decide = (state: PipelineState, draft: DecisionDraft): StageOutcome => ({ kind: 'decision', state, draft });

/**
 * A guard that could not decide: always says guard_error, and denies unless the policy fails open
 * and the failure is one of the GuardAgent layer's own (see failModeFor).
 */
export function guardError(
  state: PipelineState,
  error: { code: string; message: string },
  policyFailMode: 'open' | 'closed',
  mode: DecisionDraft['mode'] = state.code ? 'per-request' : null,
): StageOutcome {
  const failMode = failModeFor(error.code, policyFailMode);
  return decide(state, {
    verdict: failMode === 'open' ? 'allow' : 'deny',
    status: 'guard_error',
    layer: 'none',
    mode,
    reasons: [`Guard could not decide (${error.code}): ${error.message}`, failMode === 'open' ? 'failMode open: allowed' : 'fail-closed: denied'],
    error,
  });
}
