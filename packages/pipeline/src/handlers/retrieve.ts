import type { PipelineState } from '@guardagent/queue';
import { textOf } from '@guardagent/schemas';
import { withSpan } from '@guardagent/telemetry';
import type { PipelineDeps } from '../pipeline-deps';
import { next, type StageOutcome } from '../stage-outcome';
import { addTiming } from '../call-llm';

// Policies already seeded, per store: a process may run several runtimes (prefixes, Redis servers).
const seededByStore = new WeakMap<object, Set<string>>();

/**
 * Memory stage: the k demonstrations nearest to this job (Levenshtein over input + output).
 * A policy's own demonstrations are seeded into the store the first time it is seen.
 */
export async function handleRetrieve(state: PipelineState, deps: PipelineDeps): Promise<StageOutcome> {
  const { policy } = await deps.policies.getByDigest(state.tenant, state.policy.digest);
  const startedAt = deps.now();
  const seedKey = `${state.tenant}:${state.policy.digest}`;
  let seeded = seededByStore.get(deps.memory);
  if (!seeded) {
    seeded = new Set();
    seededByStore.set(deps.memory, seeded);
  }
  if (!seeded.has(seedKey) && policy.demonstrations.length > 0) {
    await deps.memory.seed(state.tenant, policy.id, policy.demonstrations);
    seeded.add(seedKey);
  }
  const demonstrations = await withSpan('memory.retrieve', { attributes: { 'guardagent.memory.k': policy.k } }, async (span) => {
    const found = await deps.memory.retrieve(
      state.tenant,
      policy.id,
      { input: textOf(state.job.input), output: textOf(state.job.output) },
      policy.k,
    );
    span.setAttribute('guardagent.memory.found', found.length);
    return found.map(({ input, output, plan, code, id }) => ({ id, input, output, plan, code }));
  });
  state = addTiming({ ...state, demonstrations }, 'retrieve', startedAt, deps.now());
  return next('planner', 'plan', state);
}
