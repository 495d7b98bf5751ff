import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { errorMessage } from '@guardagent/errors';
import { removeSandboxPoolReport, writeSandboxPoolReport, type SandboxCountDeltas } from '@guardagent/queue';
import { WAIT_BUCKETS_MS, type SandboxProcessPool, type TenantWaits } from '@guardagent/sandbox/host';
import type { Logger } from '@guardagent/telemetry';

/** How often an executor writes its pool's report (see sandbox-pool-reports.ts in @guardagent/queue). */
const REPORT_EVERY_MS = 1000;
/** Quarantines listed in one report (the counts cover every one). */
const MAX_LISTED_QUARANTINES = 100;

/**
 * Writes this executor's sandbox pool to Redis every second: its state now (for /readyz and the
 * gauges of /metrics) and what it counted since the last report (restarts, quarantines, each
 * tenant's waits for a worker). A write that fails is logged once per outage; its counts are
 * carried to the next.
 */
export class SandboxPoolReporter {
  readonly executor = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private timer: NodeJS.Timeout | null = null;
  private reported = { died: 0, hung: 0, recycled: 0, quarantinedRuns: 0, quarantines: new Map<string, number>() };
  /** Waits taken from the pool and not written yet, per tenant (bounded by the tenants that ran meanwhile). */
  private carried = new Map<string, TenantWaits>();
  private failing = false;
  private writing: Promise<void> | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly pool: SandboxProcessPool,
    private readonly options: { unservedMs: number; logger: Logger },
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.report(), REPORT_EVERY_MS);
    this.timer.unref();
    void this.report();
  }

  /** Write the report now (also every second once started). */
  report(): Promise<void> {
    this.writing ??= this.write().finally(() => {
      this.writing = null;
    });
    return this.writing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.writing;
    await removeSandboxPoolReport(this.redis, this.prefix, this.executor).catch(() => undefined);
  }

  private async write(): Promise<void> {
    const stats = this.pool.stats();
    const now = Date.now();
    const restarts = { died: stats.restarts.died - this.reported.died, hung: stats.restarts.hung - this.reported.hung, recycled: stats.restarts.recycled - this.reported.recycled };
    const quarantines = stats.quarantineTotals.map((q) => ({ tenant: q.tenant, scope: q.scope, count: q.count - (this.reported.quarantines.get(`${q.tenant}\0${q.scope}`) ?? 0) }));
    for (const [tenant, w] of this.pool.takeWaits()) {
      const carried = this.carried.get(tenant);
      if (!carried) this.carried.set(tenant, w);
      else {
        w.buckets.forEach((count, i) => {
          carried.buckets[i] = (carried.buckets[i] ?? 0) + count;
        });
        carried.count += w.count;
        carried.sumMs += w.sumMs;
      }
    }
    const waits = [...this.carried].map(([tenant, w]) => ({
      tenant,
      buckets: w.buckets.map((count, i) => ({ le: i < WAIT_BUCKETS_MS.length ? String(WAIT_BUCKETS_MS[i]) : '+Inf', count })),
      sumMs: w.sumMs,
      count: w.count,
    }));
    const deltas: SandboxCountDeltas = { restarts, quarantines, quarantinedRuns: stats.quarantinedRuns - this.reported.quarantinedRuns, waits };
    try {
      await writeSandboxPoolReport(
        this.redis,
        this.prefix,
        this.executor,
        {
          at: now,
          size: stats.size,
          workers: stats.workers,
          ready: stats.ready,
          spares: stats.spares,
          unservedMs: Math.round(stats.unservedMs),
          unserving: stats.unservedMs > this.options.unservedMs,
          quarantines: stats.quarantines.slice(0, MAX_LISTED_QUARANTINES).map((q) => ({ tenant: q.tenant, scope: q.scope, untilMs: now + Math.max(0, q.until - Date.now()) })),
          rssMb: stats.rssMb,
        },
        deltas,
      );
      this.reported = {
        died: stats.restarts.died,
        hung: stats.restarts.hung,
        recycled: stats.restarts.recycled,
        quarantinedRuns: stats.quarantinedRuns,
        quarantines: new Map(stats.quarantineTotals.map((q) => [`${q.tenant}\0${q.scope}`, q.count])),
      };
      this.carried.clear();
      if (this.failing) this.options.logger.info({}, 'sandbox pool report written again');
      this.failing = false;
    } catch (error) {
      // Counts not written go with the next report (the waits stay in `carried`).
      if (!this.failing) this.options.logger.warn({ err: errorMessage(error) }, 'could not write the sandbox pool report');
      this.failing = true;
    }
  }
}
