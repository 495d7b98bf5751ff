import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { STAGES, type Stage } from './stages';
import type { PipelineHop, PipelineJob, StageJobDataOf, StageJobKind, StageJobOf } from './stage-job';

/**
 * Job retention: completed stage jobs are kept an hour so a retried hop that re-adds the
 * same job id is recognised as a duplicate; failed ones a week for inspection.
 */
export const COMPLETED_JOB_AGE_SECONDS = 3600;
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 200 },
  removeOnComplete: { age: COMPLETED_JOB_AGE_SECONDS, count: 100_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/** One BullMQ Queue per stage, sharing one producer connection. */
export class QueueSet {
  private readonly queues = new Map<Stage, Queue>();

  /**
   * `onError` hears the errors BullMQ queues emit (connection trouble: their commands reject as
   * well). Without a listener a queue prints each one to the console.
   */
  constructor(
    private readonly connection: Redis,
    readonly prefix: string,
    private readonly onError: (error: Error) => void = () => undefined,
  ) {}

  queue(stage: Stage): Queue {
    let queue = this.queues.get(stage);
    if (!queue) {
      queue = new Queue(stage, { connection: this.connection, prefix: this.prefix, defaultJobOptions: DEFAULT_JOB_OPTIONS });
      queue.on('error', this.onError);
      this.queues.set(stage, queue);
    }
    return queue;
  }

  /**
   * Add a job of one of the queue's kinds, with that kind's data (StageJobData); a job id that
   * already exists is a no-op (BullMQ de-duplicates by id).
   */
  async add<S extends Stage, K extends StageJobKind<S>>(stage: S, kind: K, data: StageJobDataOf<S, K>, jobId: string, options: JobsOptions = {}): Promise<void> {
    await this.queue(stage).add(kind, data, { ...options, jobId });
  }

  /** A guard job's next hop (see next() in the pipeline): its state, to a kind of the stage that carries one. */
  async addPipelineJob(hop: PipelineHop, job: PipelineJob, jobId: string): Promise<void> {
    await this.queue(hop.stage).add(hop.jobKind, job, { jobId });
  }

  async addBulk<S extends Stage>(stage: S, jobs: ReadonlyArray<StageJobOf<S>>): Promise<void> {
    await this.queue(stage).addBulk(jobs.map((j) => ({ name: j.kind, data: j.data, opts: { jobId: j.jobId } })));
  }

  /** Waiting + active + delayed counts per stage (for /metrics and autoscaling). */
  async depths(): Promise<Record<Stage, { waiting: number; active: number; delayed: number; failed: number }>> {
    const entries = await Promise.all(
      STAGES.map(async (stage) => {
        const counts = await this.queue(stage).getJobCounts('waiting', 'active', 'delayed', 'failed');
        return [stage, { waiting: counts.waiting ?? 0, active: counts.active ?? 0, delayed: counts.delayed ?? 0, failed: counts.failed ?? 0 }] as const;
      }),
    );
    return Object.fromEntries(entries) as Record<Stage, { waiting: number; active: number; delayed: number; failed: number }>;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }
}
