import type { Job } from 'bullmq';
import { GuardAgentError, errorMessage } from '@guardagent/errors';
import { CheckChunkJobSchema, PipelineStateSchema, type JobFence, type PipelineState } from '@guardagent/queue';
import { extractTraceContext, withSpan, type Logger } from '@guardagent/telemetry';
import { handleCheck } from './handlers/check';
import { errorOutcome, errorOutcomeClosed } from './error-outcome';
import { finalizeDecisions, type FinalizeDeps } from './finalize';
import type { PipelineDeps } from './pipeline-deps';
import { salvageStateOf } from './salvage-state';
import type { DecisionDraft, StageOutcome } from './stage-outcome';

/** Checks of one chunk run at once (their sandbox runs queue in the sandbox pool). */
export const CHUNK_CONCURRENCY = 64;

/** What a chunk job returns: how many checks it carried, and those it sent on to the LLM path (decided later, elsewhere). */
export interface ChunkReturn {
  kind: 'chunk';
  checks: number;
  routed: string[];
}

export interface CheckChunkDeps {
  deps: PipelineDeps;
  finalize: FinalizeDeps;
  logger: Logger;
  /** Sends an outcome that is not a decision (the LLM path's next stage) on, as a stage job would. */
  routeOn: (outcome: StageOutcome) => Promise<void>;
}

type CheckResult = { state: PipelineState; outcome: StageOutcome } | { state: PipelineState; retry: unknown };

/**
 * Run a chunk job: many new guard checks, each through the same path as a `check` job (rails,
 * promoted program, fail-closed errors), their decisions stored in one round trip under the
 * chunk's fence. A check that fails (hostile, malformed, a guard run that dies) ends as its own
 * guard_error; its neighbours are decided as usual. A re-run (after a crash, a stall or a passing
 * fault) decides only the checks that have no stored decision yet.
 */
export async function processCheckChunk(job: Job, chunk: CheckChunkDeps, fence: JobFence | null): Promise<ChunkReturn> {
  const parsed = CheckChunkJobSchema.safeParse(job.data);
  if (!parsed.success) throw new Error(`unparseable check chunk: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const raws = parsed.data.checks;

  const ended: Array<{ state: PipelineState; draft: DecisionDraft }> = [];
  const toRun: PipelineState[] = [];
  const seen = new Set<string>();
  for (const [index, raw] of raws.entries()) {
    const state = PipelineStateSchema.safeParse(raw);
    if (state.success && state.data.purpose === 'check' && !state.data.jobStored) {
      if (!seen.has(checkKey(state.data))) toRun.push(state.data);
      seen.add(checkKey(state.data));
      continue;
    }
    // Enough of it to answer: a fail-closed guard_error for this check alone.
    const salvaged = salvageStateOf(raw);
    const problem = state.success ? 'a chunk carries only new guard checks' : state.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    chunk.logger.warn({ job: job.id, check: index, problem }, 'unparseable check in a chunk');
    if (!salvaged || seen.has(checkKey(salvaged))) continue;
    seen.add(checkKey(salvaged));
    const outcome = errorOutcomeClosed({ ...salvaged, purpose: 'check' }, { code: 'JOB_UNPARSEABLE', message: `the executor could not parse check ${index} of its chunk: ${problem}` });
    if (outcome.kind === 'decision') ended.push(outcome);
  }

  // A re-run skips the checks an earlier run decided (a decision stored is final).
  const rerun = job.attemptsMade > 0 || job.stalledCounter > 0;
  const undecided = rerun ? await withoutStoredDecisions(toRun, chunk) : toRun;

  const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  const results = await mapBounded(undecided, CHUNK_CONCURRENCY, (state) => runOneCheck(state, chunk, finalAttempt));

  const routed: PipelineState[] = [];
  let retry: unknown = null;
  for (const result of results) {
    if ('retry' in result) retry ??= result.retry;
    else if (result.outcome.kind === 'decision') ended.push({ state: result.outcome.state, draft: result.outcome.draft });
    else if (result.outcome.kind === 'next') routed.push(result.state);
  }
  await finalizeDecisions(chunk.finalize, ended, fence);
  for (const result of results) {
    if (!('retry' in result) && result.outcome.kind === 'next') await chunk.routeOn(result.outcome);
  }
  // What was decided is stored; a passing fault (Redis, say) under some checks lets BullMQ run
  // the chunk again, and the re-run decides only those.
  if (retry !== null) throw retry;
  return { kind: 'chunk', checks: raws.length, routed: routed.map((state) => state.jobId) };
}

/** One check, as processStageJob runs a `check` job: its own span, its own fail-closed end. */
async function runOneCheck(state: PipelineState, chunk: CheckChunkDeps, finalAttempt: boolean): Promise<CheckResult> {
  return withSpan(
    'guardagent.executor.check',
    {
      parent: extractTraceContext(state.trace),
      attributes: { 'guardagent.job.id': state.jobId, 'guardagent.policy.id': state.policy.id, 'guardagent.stage': 'executor', 'guardagent.job.kind': 'check', 'guardagent.chunked': true },
    },
    async () => {
      try {
        return { state, outcome: await handleCheck(state, chunk.deps) };
      } catch (error) {
        // As for a lone check: our own errors are final; anything else (and UNAVAILABLE) may pass,
        // so the chunk is run again, and only the last attempt fails the check closed.
        const passing = !(error instanceof GuardAgentError) || error.code === 'UNAVAILABLE';
        if (passing && !finalAttempt) return { state, retry: error };
        chunk.logger.warn({ job: state.jobId, err: errorMessage(error) }, 'check failed; ending it as guard_error');
        const code = error instanceof GuardAgentError ? error.code : 'INTERNAL_ERROR';
        return { state, outcome: await errorOutcome(state, chunk.deps, { code, message: errorMessage(error) }) };
      }
    },
  );
}

async function withoutStoredDecisions(states: PipelineState[], chunk: CheckChunkDeps): Promise<PipelineState[]> {
  const decided = await chunk.finalize.results.decided(states.map((state) => ({ tenant: state.tenant, id: state.jobId })));
  return states.filter((_, i) => !decided[i]);
}

/** Checks are told apart by tenant and id: two tenants may use the same id. */
function checkKey(state: PipelineState): string {
  return `${state.tenant}\u0000${state.jobId}`;
}

/** `fn` over `items`, at most `limit` at a time, results in order. */
async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
