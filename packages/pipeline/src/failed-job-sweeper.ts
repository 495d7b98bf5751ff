import { errorMessage } from '@guardagent/errors';
import type { Stage } from '@guardagent/queue';
import { expectsAnswer } from './answer-failed-job';
import { salvageState } from './salvage-state';
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

/**
 * A job BullMQ failed for good is answered by the worker's 'failed' handler (endFailedJob). That
 * answer is a Redis write: when Redis refused it (out of memory, a restart) or the process died
 * first, the job stays failed with no decision, and its caller would wait for ever. The sweeper
 * looks at each stage's most recently failed jobs on start and every interval, and answers those
 * still without a decision (or compile result) fail-closed, the same way. A decision stored in
 * the meantime stands: answers are written first-wins.
 */
export function startFailedJobSweeper(runtime: StageWorkerRuntime, stages: readonly Stage[], intervalMs = FAILED_SWEEP_INTERVAL_MS): FailedJobSweeper {
  let running: Promise<number> | null = null;
  const sweepOnce = async (): Promise<number> => {
    let answered = 0;
    for (const stage of stages) {
      const jobs = await runtime.queues.queue(stage).getFailed(0, FAILED_SWEEP_BATCH - 1);
      for (const job of jobs) {
        if (!expectsAnswer(stage, job.name)) continue;
        const state = salvageState(job);
        if (!state) continue;
        const answer = state.purpose === 'compile' ? await runtime.results.getCompileResult(state.tenant, state.jobId) : await runtime.results.getDecision(state.tenant, state.jobId);
        if (answer !== null) continue;
        if (await endFailedJob(stage, job, runtime, job.failedReason || 'failed')) answered += 1;
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
