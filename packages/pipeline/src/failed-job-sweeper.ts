import type { Job } from 'bullmq';
import { errorMessage } from '@guardagent/errors';
import { checksCarried, type PipelineState, type Stage } from '@guardagent/queue';
import { expectsAnswer } from './answer-failed-job';
import { salvageStateOf } from './salvage-state';
import { endFailedJob, type StageWorkerRuntime } from './stage-worker';

/** How many of each stage's most recently failed jobs one sweep looks at. */
export const FAILED_SWEEP_BATCH = 200;
/** How often a running executor sweeps (and once when its workers start). */
export const FAILED_SWEEP_INTERVAL_MS = 30_000;

export interface FailedJobSweeper {
  /** Answer the recently failed jobs that have no stored answer; resolves to how many it answered. */
  sweep(): Promise<number>;
  stop(): void;
}

/** The states a failed job would be answered for: its own, or each check of a chunk job. */
function statesOf(job: Job): PipelineState[] {
  return checksCarried(job)
    .map((raw) => salvageStateOf(raw))
    .filter((state): state is PipelineState => state !== null);
}

/**
 * A job BullMQ failed for good is answered by the worker's 'failed' handler (endFailedJob). That
 * answer is a Redis write: when Redis refused it (out of memory, a restart) or the process died
 * first, the job stays failed with no decision, and its caller would wait for ever. The sweeper
 * looks at each stage's most recently failed jobs on start and every interval, and answers those
 * still without a decision (or compile result) fail-closed, the same way; for a chunk job, each
 * of its checks without a decision. Whether checks are decided is one round trip per stage. A decision stored in
 * the meantime stands: answers are written first-wins.
 */
export function startFailedJobSweeper(runtime: StageWorkerRuntime, stages: readonly Stage[], intervalMs = FAILED_SWEEP_INTERVAL_MS): FailedJobSweeper {
  let running: Promise<number> | null = null;
  const sweepOnce = async (): Promise<number> => {
    let answered = 0;
    for (const stage of stages) {
      const jobs = await runtime.queues.queue(stage).getFailed(0, FAILED_SWEEP_BATCH - 1);
      // Each job's checks (a chunk job carries many), asked about in one round trip.
      const waiting = jobs.filter((job) => expectsAnswer(stage, job.name)).map((job) => ({ job, states: statesOf(job) }));
      const checks = waiting.flatMap(({ states }) => states.filter((state) => state.purpose === 'check'));
      const decided = await runtime.results.decided(checks.map((state) => ({ tenant: state.tenant, id: state.jobId })));
      const answeredChecks = new Set(checks.filter((_, i) => decided[i]).map((state) => `${state.tenant}\u0000${state.jobId}`));
      for (const { job, states } of waiting) {
        let unanswered = false;
        for (const state of states) {
          if (state.purpose === 'compile') unanswered ||= (await runtime.results.getCompileResult(state.tenant, state.jobId)) === null;
          else unanswered ||= !answeredChecks.has(`${state.tenant}\u0000${state.jobId}`);
        }
        // The answer is written first-wins, so checks of a chunk answered meanwhile keep theirs.
        if (unanswered && (await endFailedJob(stage, job, runtime, job.failedReason || 'failed'))) answered += 1;
      }
    }
    if (answered > 0) runtime.logger.warn({ answered, stages: [...stages] }, 'answered failed jobs that had no answer');
    return answered;
  };
  // One sweep at a time: a slow sweep is not stacked on by the next tick.
  const sweep = () => (running ??= sweepOnce().finally(() => (running = null)));
  const tick = () => {
    sweep().catch((error) => runtime.logger.error({ err: errorMessage(error) }, 'failed-job sweep failed'));
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return { sweep, stop: () => clearInterval(timer) };
}
