import { LlmNotConfiguredError, NoCompiledProgramError, errorMessage } from '@guardagent/errors';
import type { PipelineState } from '@guardagent/queue';
import { withSpan } from '@guardagent/telemetry';
import type { PipelineDeps } from '../pipeline-deps';
import { decide, guardError, next, type StageOutcome } from '../stage-outcome';
import { runGuardCode, withHostUsage } from '../run-guard-code';
import { addTiming } from '../call-llm';
import { verdictDraft, sandboxFailure } from './verdict-draft';

/**
 * The executor's entry for a new guard job: rails first (no LLM), then a verified program
 * (no LLM), else the per-request GuardAgent pipeline (memory → planner → codegen → executor).
 * When the policy id has a shadow version, it decides beside, and its result travels with the job.
 */
export async function handleCheck(state: PipelineState, deps: PipelineDeps): Promise<StageOutcome> {
  const outcome = await enforceCheck(state, deps);
  if (!state.shadow || state.shadowResult || outcome.kind === 'done' || !('state' in outcome)) return outcome;
  const shadowResult = await shadowCheck({ ...state, shadowResult: null }, state.shadow, deps);
  return { ...outcome, state: { ...outcome.state, shadowResult } } as StageOutcome;
}

/** The enforcing path of a check (see handleCheck). */
async function enforceCheck(state: PipelineState, deps: PipelineDeps): Promise<StageOutcome> {
  const registered = await deps.policies.getByDigest(state.tenant, state.policy.digest);
  const { policy } = registered;

  if (policy.rails) {
    const startedAt = deps.now();
    // The call id names this submission, not only the job id: a stalled job re-run carries the same
    // submittedAt (counted once, its used approval still honoured), while a new submission that
    // reuses the id after the decision expired does not, so a used token stays used for ever.
    const callId = `${state.jobId}@${state.submittedAt}`;
    const rails = await withSpan('rails.evaluate', {}, () => deps.rails.evaluate(state.tenant, registered, state.job, callId, { replayId: state.replayId }));
    state = addTiming(state, 'rails', startedAt, deps.now());
    // deny and pending end here (no LLM call). An approved call (allow) still meets the
    // GuardAgent layer when the policy has requests: the approver approved the rail's condition,
    // not everything else the requests say.
    const railsOnly = !policy.requests?.trim();
    if (railsOnly && rails.verdict === 'continue' && !state.job.action && !policy.rails.allowPlainJobs) {
      // Nothing declared for the allow-list to judge, and no guard requests behind the rails.
      return decide(state, {
        verdict: 'deny',
        status: 'ok',
        layer: 'rails',
        mode: null,
        reasons: [...rails.reasons, 'the job declares no action (tool call or message), and this policy allows only declared actions (rails.allowPlainJobs: false)'],
        rules: [...rails.rules, 'rails.action-required'],
        ...(rails.redacted ? { redacted: rails.redacted } : {}),
      });
    }
    if (rails.verdict === 'deny' || rails.verdict === 'pending' || railsOnly) {
      return decide(state, {
        verdict: rails.verdict === 'continue' ? 'allow' : rails.verdict,
        status: 'ok',
        layer: 'rails',
        mode: null,
        reasons: rails.reasons,
        rules: rails.rules,
        ...(rails.redacted ? { redacted: rails.redacted } : {}),
        ...(rails.approval ? { approval: rails.approval } : {}),
        ...(rails.approvalRecord ? { approvalRecord: rails.approvalRecord } : {}),
      });
    }
    state = { ...state, rails: { rules: rails.rules, reasons: rails.reasons, ...(rails.redacted ? { redacted: rails.redacted } : {}) } };
  }

  if (policy.mode !== 'per-request') {
    const program = await deps.programs.getPromoted(state.tenant, state.policy.programDigest);
    if (program) {
      const startedAt = deps.now();
      const result = await runGuardCode(deps, policy, program.code, state.job, 'program', state.tenant, `program:${state.policy.programDigest}`);
      // The program text stays in the registry (by program digest): not stored with every decision.
      state = addTiming(withHostUsage({ ...state, attempts: state.attempts + 1 }, result), 'execute', startedAt, deps.now());
      if (result.ok) return decide(state, verdictDraft(result.verdict, 'compiled'));
      return guardError(state, sandboxFailure(result.error, 'The compiled program'), policy.failMode, 'compiled');
    }
    if (policy.mode === 'compiled') {
      const error = new NoCompiledProgramError(policy.id, state.policy.programDigest);
      return guardError(state, { code: error.code, message: error.message }, policy.failMode);
    }
  }

  if (!deps.llm) {
    const error = new LlmNotConfiguredError(`Policy '${policy.id}' has no verified program, so per-request guarding`);
    return guardError(state, { code: error.code, message: error.message }, policy.failMode);
  }
  if (policy.mode === 'auto') await deps.requestCompile(state.tenant, state.policy.digest);
  return next('memory', 'retrieve', state);
}

/**
 * What the shadow version decides for this check: its rails and its verified program, as the
 * enforcing version's are run, under the same call id, so that a rate limit or an approval the
 * enforcing run counted or used is not counted or used again. It never runs the LLM (no shadow
 * without a verified program decides: `undecided`; in auto mode that asks for its compile), and
 * its approval token is never recorded (only stored decisions record theirs). Never throws.
 */
async function shadowCheck(state: PipelineState, shadow: NonNullable<PipelineState['shadow']>, deps: PipelineDeps): Promise<NonNullable<PipelineState['shadowResult']>> {
  const policy = shadow;
  try {
    const outcome = await enforceCheck({ ...state, policy: shadow, shadow: null, rails: null, timings: {} }, deps);
    if (outcome.kind === 'decision') {
      const { draft } = outcome;
      return { policy, decision: draft.verdict, status: draft.status, reasons: draft.reasons, rules: [...(outcome.state.rails?.rules ?? []), ...(draft.rules ?? [])], agrees: null };
    }
    return { policy, decision: null, status: 'undecided', reasons: ['the shadow version has no verified program (a shadow never runs the LLM)'], rules: [], agrees: null };
  } catch (error) {
    return { policy, decision: null, status: 'undecided', reasons: [`the shadow version could not decide: ${errorMessage(error)}`], rules: [], agrees: null };
  }
}
