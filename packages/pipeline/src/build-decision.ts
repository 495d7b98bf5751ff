import type { Decision } from '@guardagent/schemas';
import type { PipelineState } from '@guardagent/queue';
import type { DecisionDraft } from './stage-outcome';
import { traceIdOf } from './trace-id';

/** Assemble the stored Decision from the job's state and the guard's conclusion. */
export function buildDecision(state: PipelineState, draft: DecisionDraft, policyVersion: string, now: number): Decision {
  const total = Math.max(0, now - state.submittedAt);
  const measured = Object.values(state.timings).reduce((sum, ms) => sum + ms, 0);
  const timings = {
    ...roundAll(state.timings),
    queue: round(Math.max(0, total - measured)),
    total: round(total),
  };
  return {
    id: state.jobId,
    policy: {
      id: state.policy.id,
      version: policyVersion,
      digest: state.policy.digest,
      ...(draft.mode === 'compiled' ? { programDigest: state.policy.programDigest } : {}),
    },
    decision: draft.verdict,
    status: draft.status,
    layer: draft.layer,
    mode: draft.mode,
    reasons: draft.reasons,
    rules: [...(state.rails?.rules ?? []), ...(draft.rules ?? [])].filter((r, i, all) => all.indexOf(r) === i),
    details: draft.details ?? {},
    plan: state.plan,
    code: state.code,
    attempts: state.attempts,
    timings,
    usage: state.usage,
    traceId: traceIdOf(state.trace),
    ...(draft.error ? { error: draft.error } : {}),
    ...(draft.redacted ?? state.rails?.redacted ? { redacted: draft.redacted ?? state.rails?.redacted } : {}),
    ...(draft.approval ? { approval: draft.approval } : {}),
    ...(state.shadowResult ? { shadow: withAgreement(state.shadowResult, draft) } : {}),
    createdAt: new Date(now).toISOString(),
  };
}

/** The shadow's decision, saying whether it agrees with the enforcing one (null when it could not decide). */
function withAgreement(shadow: NonNullable<PipelineState['shadowResult']>, draft: DecisionDraft): NonNullable<Decision['shadow']> {
  if (shadow.status === 'undecided') return { ...shadow, agrees: null };
  const sameStatus = (shadow.status === 'guard_error') === (draft.status === 'guard_error');
  return { ...shadow, agrees: sameStatus && shadow.decision === draft.verdict };
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;
function roundAll(timings: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, round(v)]));
}
