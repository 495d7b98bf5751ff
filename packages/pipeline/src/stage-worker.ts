import { hostname } from 'node:os';
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { GuardAgentError, errorMessage } from '@guardagent/errors';
import { CHECK_CHUNK_JOB, PipelineJobSchema, keys, type SideJobKind, type JobFence, type RedisOutageLog, type PipelineState, type QueueSet, type ResultStore, type Stage } from '@guardagent/queue';
import { extractTraceContext, withSpan, type Logger } from '@guardagent/telemetry';
import type { PipelineDeps } from './pipeline-deps';
import { PIPELINE_HANDLERS, handleArchive, handleFeedback, type PipelineHandler } from './handlers/index';
import type { StageOutcome } from './stage-outcome';
import { errorOutcome, errorOutcomeClosed } from './error-outcome';
import { finalizeCompile, finalizeDecision } from './finalize';
import { STALLS_BEFORE_QUARANTINE, answerFailedJob, type AnswerFailedJobDeps } from './answer-failed-job';
import { salvageState } from './salvage-state';
import { processCheckChunk } from './process-check-chunk';
import type { DecisionLogMode } from './decision-log-entry';

export interface StageWorkerRuntime {
  deps: PipelineDeps;
  queues: QueueSet;
  results: ResultStore;
  workerConnection: Redis;
  prefix: string;
  logger: Logger;
  /** Absorbs connection errors into one line per Redis outage (absent: each is logged). */
  outage?: RedisOutageLog;
  lockDurationMs: number;
  stalledIntervalMs: number;
  /** Which decisions go to the decision log (absent: those of policies that ask). */
  decisionLog?: DecisionLogMode;
}

/** Tries at one takeover count (0.5 + 1 + … + 4.5 s between them: about 22 s in all). */
const TAKEOVER_COUNT_ATTEMPTS = 10;

/** A side job's handler: its data is not a guard job's state (a chunk of checks, a case to archive, feedback). */
type SideJobHandler = (job: Job, runtime: StageWorkerRuntime, fence: JobFence | null) => Promise<unknown>;

/**
 * The side jobs' handlers, by queue and kind. With PIPELINE_HANDLERS (the kinds that carry a
 * guard job's state) they give every kind of the queue catalog exactly one handler: the types
 * (SideJobKind, PipelineJobKind of @guardagent/queue) make a kind without one a compile error.
 */
const SIDE_JOB_HANDLERS: { [S in Stage]: Record<SideJobKind<S>, SideJobHandler> } = {
  executor: {
    [CHECK_CHUNK_JOB]: (job, runtime, fence) => {
      const routeOn = (outcome: StageOutcome) => applyOutcome(outcome, runtime, fence);
      return processCheckChunk(job, { deps: runtime.deps, finalize: finalizeDepsOf(runtime), logger: runtime.logger, routeOn }, fence);
    },
  },
  memory: {
    archive: (job, runtime) => handleArchive(job.data, runtime.deps),
    feedback: (job, runtime) => handleFeedback(job.data, runtime.deps),
  },
  planner: {},
  codegen: {},
  debugger: {},
};

/** A BullMQ worker for one stage: parse the job, run its handler, pass the outcome on. */
export function startStageWorker(stage: Stage, runtime: StageWorkerRuntime, concurrency: number): Worker {
  const jobLock = keys(runtime.prefix).jobLock;
  // BullMQ hands the processor this worker's lock token: decisions are saved under it (a fence).
  const fenceOf = (job: Job, token: string | undefined): JobFence | null => (token && job.id ? { jobId: job.id, lockKey: jobLock(stage, job.id), token } : null);
  const worker = new Worker(stage, (job, token) => processStageJob(stage, job, runtime, fenceOf(job, token)), {
    // Recorded on each job (processedBy), so operators can see which process did the work.
    name: `${stage}@${hostname()}:${process.pid}`,
    connection: runtime.workerConnection,
    prefix: runtime.prefix,
    concurrency,
    lockDuration: runtime.lockDurationMs,
    stalledInterval: runtime.stalledIntervalMs,
    // A job whose executor died while running it is run once more; if that executor dies too, the
    // job is quarantined (see endFailedJob) instead of taking down executor after executor.
    maxStalledCount: STALLS_BEFORE_QUARANTINE,
    removeOnComplete: { age: 3600, count: 100_000 },
    removeOnFail: { age: 7 * 24 * 3600 },
  });
  worker.on('error', (error) => {
    if (runtime.outage?.absorb(error)) return;
    runtime.logger.error({ stage, err: errorMessage(error) }, 'worker error');
  });
  // This worker's stalled-job check found a job whose worker stopped renewing its lock (it died or
  // froze) and put it back to be run again: say so, and count it for /metrics.
  worker.on('stalled', (jobId) => {
    runtime.logger.warn({ stage, job: jobId }, 'took over a stalled job: the worker running it stopped renewing its lock');
    countTakeover(runtime, 'stalled', stage);
  });
  worker.on('completed', (job) => {
    if (job.stalledCounter > 0) {
      runtime.logger.info({ stage, job: job.id, stalls: job.stalledCounter }, 'finished a job taken over from a stalled worker');
      countTakeover(runtime, 'recovered', stage);
    }
  });
  worker.on('failed', (job, error) => {
    // An attempt that BullMQ will retry is not a failure of the job (during a Redis outage there is
    // one per job in flight); the last attempt's failure is logged, unless the outage already was.
    const retried = job !== undefined && job.attemptsMade < (job.opts.attempts ?? 1);
    if (!retried && !runtime.outage?.absorb(error)) {
      runtime.logger.warn({ stage, job: job?.id, attempts: job?.attemptsMade, err: errorMessage(error) }, 'stage job failed');
    }
    // A job BullMQ gives up on (attempts used up, or stalled too often: then our processor never
    // even runs) must still end with an answer: fail closed, as for any guard that cannot decide.
    if (job) void endFailedJob(stage, job, runtime, errorMessage(error));
    // A job taken over that then failed for good (ended fail-closed above) is not recovered, but
    // it did end: counted apart, so stalled = recovered + failed_after_takeover once all are done.
    if (job && !retried && job.stalledCounter > 0) countTakeover(runtime, 'failed_after_takeover', stage);
  });
  return worker;
}

/**
 * Count a takeover in Redis for /metrics. A count refused (Redis past maxmemory refuses HINCRBY,
 * or briefly unreachable) is tried again a few times over about half a minute, so a short fault
 * does not leave stalled and recovered counts apart for good; a count still refused is logged.
 */
function countTakeover(runtime: StageWorkerRuntime, what: 'stalled' | 'recovered' | 'failed_after_takeover', stage: Stage, attempt = 1): void {
  runtime.workerConnection.hincrby(keys(runtime.prefix).metricsTakeovers(), `${what}|${stage}`, 1).catch((error: unknown) => {
    if (attempt >= TAKEOVER_COUNT_ATTEMPTS) {
      runtime.logger.warn({ stage, err: errorMessage(error) }, `could not count a ${what} job`);
      return;
    }
    setTimeout(() => countTakeover(runtime, what, stage, attempt + 1), 500 * attempt).unref();
  });
}

/**
 * Run one stage job. `fence` is this worker's lock on it: the decision is stored only while the
 * lock is still this worker's (see SAVE_DECISION in result-store.ts).
 */
export async function processStageJob(stage: Stage, job: Job, runtime: StageWorkerRuntime, fence: JobFence | null = null): Promise<unknown> {
  const { deps } = runtime;
  const sideHandlers: Partial<Record<string, SideJobHandler>> = SIDE_JOB_HANDLERS[stage];
  const side = Object.hasOwn(sideHandlers, job.name) ? sideHandlers[job.name] : undefined;
  if (side) return side(job, runtime, fence);

  const parsed = PipelineJobSchema.safeParse(job.data);
  if (!parsed.success) return endUnparseable(stage, job, runtime, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '), fence);
  let state = parsed.data.state;
  if (state.jobStored) {
    const payload = await runtime.results.getJobPayload(state.tenant, state.jobId);
    if (!payload) {
      await applyOutcome(errorOutcomeClosed(state, { code: 'JOB_PAYLOAD_EXPIRED', message: `the job's stored payload is gone (kept as long as decisions)` }), runtime, fence);
      return 'payload-expired';
    }
    state = { ...state, job: payload };
  }
  const handlers: Partial<Record<string, PipelineHandler>> = PIPELINE_HANDLERS[stage];
  const handler = Object.hasOwn(handlers, job.name) ? handlers[job.name] : undefined;

  return withSpan(
    `guardagent.${stage}.${job.name}`,
    {
      parent: extractTraceContext(state.trace),
      attributes: { 'guardagent.job.id': state.jobId, 'guardagent.policy.id': state.policy.id, 'guardagent.stage': stage, 'guardagent.job.kind': job.name },
    },
    async () => {
      let outcome: StageOutcome;
      if (!handler) {
        outcome = await errorOutcome(state, deps, { code: 'UNKNOWN_JOB_KIND', message: `queue ${stage} has no job kind '${job.name}'` });
      } else {
        try {
          outcome = await handler(state, deps);
        } catch (error) {
          // Our own errors are final (bad LLM reply, missing policy...). Anything else, and
          // UNAVAILABLE (a store's Redis script failed), may be a passing infrastructure fault:
          // let BullMQ retry, and only the last attempt fails closed.
          const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
          const passing = !(error instanceof GuardAgentError) || error.code === 'UNAVAILABLE';
          if (passing && !finalAttempt) throw error;
          runtime.logger.warn({ stage, job: state.jobId, err: errorMessage(error) }, 'stage failed; ending job as guard_error');
          const code = error instanceof GuardAgentError ? error.code : 'INTERNAL_ERROR';
          outcome = await errorOutcome(state, deps, { code, message: errorMessage(error) });
        }
      }
      await applyOutcome(outcome, runtime, fence);
      return outcome.kind;
    },
  );
}

async function applyOutcome(outcome: StageOutcome, runtime: StageWorkerRuntime, fence: JobFence | null): Promise<void> {
  const finalize = finalizeDepsOf(runtime);
  switch (outcome.kind) {
    case 'next': {
      // Deterministic id per hop: if this worker dies after adding, the retry adds nothing new.
      await runtime.queues.addPipelineJob(outcome, { state: await withStoredPayload(outcome.state, runtime) }, `${outcome.state.jobId}__${outcome.state.step}`);
      return;
    }
    case 'decision':
      if (outcome.state.purpose === 'compile') {
        await finalizeCompile(finalize, outcome.state, { status: 'error', report: null, error: { code: 'INTERNAL_ERROR', message: outcome.draft.reasons.join('; ') } });
      } else {
        await finalizeDecision(finalize, outcome.state, outcome.draft, fence);
      }
      return;
    case 'compile-result':
      await finalizeCompile(finalize, outcome.state, outcome.draft);
      return;
    case 'done':
      return;
  }
}

/** Payloads smaller than this travel with every hop: storing them apart would cost more than it saves. */
const STORE_PAYLOAD_OVER_CHARS = 2048;

/** The state a hop job carries: past the first hop, without the job's payload (stored once instead). */
async function withStoredPayload(state: PipelineState, runtime: StageWorkerRuntime): Promise<PipelineState> {
  if (state.jobStored) return { ...state, job: EMPTY_PAYLOAD };
  if (JSON.stringify(state.job).length < STORE_PAYLOAD_OVER_CHARS) return state;
  await runtime.results.storeJobPayload(state.tenant, state.jobId, state.job);
  return { ...state, jobStored: true, job: EMPTY_PAYLOAD };
}

const EMPTY_PAYLOAD: PipelineState['job'] = { input: '', output: '', context: {} };

/**
 * A job whose data does not match the catalog never reaches a handler. If enough of it is
 * readable to know whom to answer, it ends as a fail-closed guard_error; else it just fails.
 */
async function endUnparseable(stage: Stage, job: Job, runtime: StageWorkerRuntime, problem: string, fence: JobFence | null): Promise<string> {
  runtime.logger.warn({ stage, job: job.id, problem }, 'unparseable stage job');
  const state = salvageState(job);
  if (!state) throw new Error(`unparseable job on ${stage}: ${problem}`);
  await applyOutcome(errorOutcomeClosed(state, { code: 'JOB_UNPARSEABLE', message: `the ${stage} worker could not parse the job: ${problem}` }), runtime, fence);
  return 'unparseable';
}

/** After BullMQ failed a job for good (not a retry), answer it; a decision stored earlier stands (NX). */
export async function endFailedJob(stage: Stage, job: Job, runtime: StageWorkerRuntime, reason: string): Promise<boolean> {
  return answerFailedJob(finalizeDepsOf(runtime), stage, job, reason);
}

/** What finalizing (and answering a failed job) needs from a stage worker's runtime. */
function finalizeDepsOf(runtime: StageWorkerRuntime): AnswerFailedJobDeps {
  return {
    results: runtime.results,
    queues: runtime.queues,
    programs: runtime.deps.programs,
    now: runtime.deps.now,
    logger: runtime.logger,
    ...(runtime.decisionLog ? { decisionLog: runtime.decisionLog } : {}),
    ...(runtime.deps.railsOffload ? { offload: runtime.deps.railsOffload } : {}),
  };
}
