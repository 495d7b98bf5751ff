import type { PipelineState } from '@guardagent/queue';
import type { PipelineDeps } from '../pipeline-deps';
import { next, type StageOutcome } from '../stage-outcome';
import { addTiming } from '../call-llm';
import { verifyProgram } from '../verify-program';

/**
 * Compile step in the executor: replay the policy's labelled examples (and confirmed feedback)
 * through the candidate program. Pass → promote for the program digest. Fail → the debugger
 * repairs it with the failing examples as the error, or it stays unpromoted with its report.
 * A hand-supplied program is verified but never rewritten.
 */
export async function handleVerify(state: PipelineState, deps: PipelineDeps): Promise<StageOutcome> {
  const { policy } = await deps.policies.getByDigest(state.tenant, state.policy.digest);
  const code = state.code ?? policy.program;
  if (!code) {
    return { kind: 'compile-result', state, draft: { status: 'error', report: null, error: { code: 'PIPELINE_STATE_INVALID', message: 'no program to verify' } } };
  }
  const feedback = await deps.memory.listFeedbackExamples(state.tenant, policy.id);
  const examples = [...policy.examples, ...feedback];
  const startedAt = deps.now();
  const { report, failures } = await verifyProgram(deps, policy, code, examples, state.tenant);
  state = addTiming({ ...state, code, attempts: state.attempts + 1, failures }, 'verify', startedAt, deps.now());

  if (report.passed) {
    await deps.programs.promote(state.tenant, {
      code,
      plan: state.plan,
      source: code === policy.program ? 'supplied' : 'compiled',
      policyId: policy.id,
      policyVersion: policy.version,
      programDigest: state.policy.programDigest,
      report,
      promotedAt: new Date(deps.now()).toISOString(),
    });
    return { kind: 'compile-result', state, draft: { status: 'promoted', report } };
  }

  const supplied = code === policy.program;
  const maxRounds = policy.limits?.maxDebugRounds ?? deps.maxDebugRounds;
  if (!supplied && deps.llm && examples.length > 0 && state.debugRounds < maxRounds) {
    return next('debugger', 'debug', state);
  }
  // A failed candidate never takes down a program that still passes the same examples: re-verify
  // the promoted one, and only a program that fails them stops deciding.
  const promoted = await deps.programs.getPromoted(state.tenant, state.policy.programDigest);
  if (promoted && promoted.code !== code) {
    const recheck = await verifyProgram(deps, policy, promoted.code, examples, state.tenant);
    if (recheck.report.passed) return { kind: 'compile-result', state, draft: { status: 'failed', report, keptPrevious: true } };
  }
  // A program that fails its (possibly grown) examples must not go on deciding.
  await deps.programs.demote(state.tenant, state.policy.programDigest);
  await deps.programs.saveReport(state.tenant, state.policy.programDigest, report);
  return { kind: 'compile-result', state, draft: { status: 'failed', report } };
}
