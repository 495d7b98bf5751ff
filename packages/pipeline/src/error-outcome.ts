import type { PipelineState } from '@guardagent/queue';
import type { PipelineDeps } from './pipeline-deps';
import { guardError, type StageOutcome } from './stage-outcome';

async function failModeOf(state: PipelineState, deps: PipelineDeps): Promise<'open' | 'closed'> {
  try {
    return (await deps.policies.getByDigest(state.tenant, state.policy.digest)).policy.failMode;
  } catch {
    return 'closed';
  }
}

/** The fail-closed end of a job that cannot go on: a guard_error decision, or a failed compile. */
export async function errorOutcome(state: PipelineState, deps: PipelineDeps, error: { code: string; message: string }): Promise<StageOutcome> {
  return state.purpose === 'compile'
    ? { kind: 'compile-result', state, draft: { status: 'error', report: null, error } }
    : guardError(state, error, await failModeOf(state, deps));
}

/** Like errorOutcome, but closed under any failMode: for jobs the infrastructure could not run. */
export function errorOutcomeClosed(state: PipelineState, error: { code: string; message: string }): StageOutcome {
  return state.purpose === 'compile'
    ? { kind: 'compile-result', state, draft: { status: 'error', report: null, error } }
    : guardError(state, error, 'closed');
}
