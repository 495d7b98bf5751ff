import { guardContext, type Policy } from '@guardagent/schemas';
import type { PipelineState, StageJobPayload } from '@guardagent/queue';
import type { RunResult } from '@guardagent/sandbox/host';
import { withSpan } from '@guardagent/telemetry';
import { guardRunLimits } from './sandbox/guard-run-limits';
import type { PipelineDeps } from './pipeline-deps';

/** The job's usage plus what the run's toolbox calls spent on the LLM (so `decision.usage` shows it). */
export function withHostUsage(state: PipelineState, result: RunResult): PipelineState {
  const host = result.hostUsage;
  if (!host) return state;
  return {
    ...state,
    usage: {
      calls: state.usage.calls + host.calls,
      promptTokens: state.usage.promptTokens + host.promptTokens,
      completionTokens: state.usage.completionTokens + host.completionTokens,
    },
  };
}


/**
 * Run guard code for one job in the sandbox, under the policy's limits. `version` names the guard
 * (a program or policy digest) for the sandbox's crash budget: the workers a version kills are
 * counted against it and against its tenant (see CrashBudget in @guardagent/sandbox).
 */
export async function runGuardCode(
  deps: PipelineDeps,
  policy: Policy,
  code: string,
  job: StageJobPayload,
  reuse: 'fresh' | 'program',
  tenant: string,
  version?: string,
): Promise<RunResult> {
  const limits = guardRunLimits(deps.sandboxLimits, policy.limits);
  return withSpan('sandbox.run', { attributes: { 'guardagent.sandbox.reuse': reuse } }, async (span) => {
    const result = await deps.sandbox.run({
      code,
      input: job.input,
      output: job.output,
      context: guardContext(job),
      packs: [...policy.toolbox],
      tenant,
      limits,
      reuse,
      ...(version ? { version } : {}),
    });
    span.setAttribute('guardagent.sandbox.ok', result.ok);
    span.setAttribute('guardagent.sandbox.duration_us', result.durationUs);
    if (!result.ok) span.setAttribute('guardagent.sandbox.error_kind', result.error.kind);
    return result;
  });
}
