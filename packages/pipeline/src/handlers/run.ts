import type { PipelineState } from '@guardagent/queue';
import type { PipelineDeps } from '../pipeline-deps';
import { decide, guardError, next, type StageOutcome } from '../stage-outcome';
import { runGuardCode, withHostUsage } from '../run-guard-code';
import { addTiming } from '../call-llm';
import { isPoisonRun, sandboxFailure, verdictDraft } from './verdict-draft';

/**
 * Execute per-request guard code (unverified: a fresh sandbox context). Its result is the
 * decision; a failure goes to the debugger until the rounds run out, then fails closed.
 */
export async function handleRun(state: PipelineState, deps: PipelineDeps): Promise<StageOutcome> {
  const { policy } = await deps.policies.getByDigest(state.tenant, state.policy.digest);
  if (!state.code) return guardError(state, { code: 'PIPELINE_STATE_INVALID', message: 'no code to run' }, policy.failMode);
  const startedAt = deps.now();
  const result = await runGuardCode(deps, policy, state.code, state.job, 'fresh', state.tenant, `policy:${state.policy.digest}`);
  state = addTiming(withHostUsage({ ...state, attempts: state.attempts + 1 }, result), 'execute', startedAt, deps.now());
  if (result.ok) return decide({ ...state, lastError: null }, verdictDraft(result.verdict, 'per-request'));
  // A run that killed or hung its worker ends here: debugging would run the same input again
  // (and a quarantined one was not run at all).
  if (isPoisonRun(result.error)) return guardError(state, sandboxFailure(result.error, 'Guard code'), policy.failMode);
  const maxRounds = policy.limits?.maxDebugRounds ?? deps.maxDebugRounds;
  if (state.debugRounds < maxRounds) return next('debugger', 'debug', { ...state, lastError: result.error });
  const failure = sandboxFailure(result.error, `Guard code (after ${state.debugRounds} debugging round(s))`);
  return guardError(state, failure, policy.failMode);
}
