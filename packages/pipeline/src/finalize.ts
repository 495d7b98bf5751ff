import type { CompileResult } from '@guardagent/schemas';
import type { JobFence, PipelineState, QueueSet, ResultStore } from '@guardagent/queue';
import { LockLostError } from './lock-lost-error';
import { textOf } from '@guardagent/schemas';
import type { RailsOffload } from '@guardagent/rails';
import type { ProgramStore } from '@guardagent/registry';
import { buildDecision } from './build-decision';
import type { CompileResultDraft, DecisionDraft } from './stage-outcome';
import { traceIdOf } from './trace-id';
import { withSpan } from '@guardagent/telemetry';
import { decisionLogEntry, recordsDecision, type DecisionLogMode } from './decision-log-entry';

/** How long a failed background compile of a policy version waits before another is tried. */
const COMPILE_BACKOFF_SECONDS = 3600;

export interface FinalizeDeps {
  results: ResultStore;
  queues: QueueSet;
  programs: ProgramStore;
  now: () => number;
  /** Which decisions are recorded in the decision log (absent: those of policies that ask). */
  decisionLog?: DecisionLogMode;
  /** Where a heavy log entry is redacted, off the event loop (absent: inline). */
  offload?: RailsOffload;
}

/**
 * End a guard job: store its decision (first one wins), announce it, and keep per-request
 * cases (plan + code) as candidate demonstrations for the memory.
 */
export async function finalizeDecision(deps: FinalizeDeps, state: PipelineState, draft: DecisionDraft, fence: JobFence | null = null): Promise<void> {
  await finalizeDecisions(deps, [{ state, draft }], fence);
}

/**
 * End many guard jobs at once (a chunk's): their decisions are stored and announced in one round
 * trip, each first-wins, all under one fence. Throws LockLostError, having written nothing, when
 * the fence is no longer this worker's.
 */
export async function finalizeDecisions(deps: FinalizeDeps, ended: ReadonlyArray<{ state: PipelineState; draft: DecisionDraft }>, fence: JobFence | null = null): Promise<void> {
  // A child of the active span: a lone check's (its job's span is open around this); a chunk's
  // store serves many traces and is a span of its own.
  await withSpan('decisions.store', { attributes: { 'guardagent.decisions': ended.length } }, () => storeDecisions(deps, ended, fence));
}

async function storeDecisions(deps: FinalizeDeps, ended: ReadonlyArray<{ state: PipelineState; draft: DecisionDraft }>, fence: JobFence | null): Promise<void> {
  const now = deps.now();
  const decisions = ended.map(({ state, draft }) => buildDecision(state, draft, state.policy.version, now));
  // One after another: each takes its turn of the event loop (or goes to the rails' worker).
  const logEntries: Array<string | null> = [];
  for (const [i, { state }] of ended.entries()) logEntries.push(recordsDecision(deps.decisionLog, state) ? await decisionLogEntry(state, decisions[i]!, deps.offload) : null);
  const saved = await deps.results.saveDecisions(
    ended.map(({ state, draft }, i) => ({
      decision: decisions[i],
      tenant: state.tenant,
      replyTo: state.replyTo,
      batchId: state.batchId,
      record: draft.approvalRecord ?? null,
      logEntry: logEntries[i] ?? null,
    })),
    fence,
  );
  // Another worker owns the job now; it stores the answers (and archives its own cases).
  if (saved.includes('lock-lost')) throw new LockLostError(fence?.jobId ?? ended[0]?.state.jobId ?? '');
  // Archive even when an earlier attempt of this job stored the decision and died before
  // archiving: the fixed job id keeps it to one archive job.
  for (const [i, { state }] of ended.entries()) {
    const decision = decisions[i];
    if (decision.mode !== 'per-request' || !state.plan || !state.code) continue;
    await deps.queues.add(
      'memory',
      'archive',
      {
        tenant: state.tenant,
        policyId: state.policy.id,
        candidate: {
          jobId: state.jobId,
          input: textOf(state.job.input),
          output: textOf(state.job.output),
          plan: state.plan,
          code: state.code,
          decision: decision.decision,
          status: decision.status,
          reasons: decision.reasons,
        },
      },
      `${state.jobId}__archive`,
    );
  }
}

/** End a compile job: store and announce its result, release the background-compile lock. */
export async function finalizeCompile(deps: FinalizeDeps, state: PipelineState, draft: CompileResultDraft): Promise<void> {
  const now = deps.now();
  const result: CompileResult = {
    id: state.jobId,
    policy: state.policy,
    status: draft.status,
    report: draft.report,
    code: state.code,
    plan: state.plan,
    attempts: state.attempts,
    debugRounds: state.debugRounds,
    usage: state.usage,
    timings: { ...state.timings, total: now - state.submittedAt },
    traceId: traceIdOf(state.trace),
    ...(draft.error ? { error: draft.error } : {}),
    ...(draft.keptPrevious ? { keptPrevious: true } : {}),
    createdAt: new Date(now).toISOString(),
  };
  await deps.results.saveCompileResult(state.tenant, state.jobId, result, state.replyTo);
  // Only a background compile holds the lock (explicit compiles never take it).
  if (state.backgroundCompile) {
    if (draft.status === 'promoted') await deps.programs.unlockCompile(state.tenant, state.policy.programDigest);
    else await deps.programs.backOffCompile(state.tenant, state.policy.programDigest, COMPILE_BACKOFF_SECONDS);
  }
}
