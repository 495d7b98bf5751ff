import type { Redis } from 'ioredis';
import { z } from 'zod';
import { keys } from './keys';

/**
 * What each executor says about its sandbox pool, for the gateway's /metrics and /readyz. The
 * pools live in the executors; the gateway reads these at scrape time, as it reads the decision
 * counts. Two keys under the deployment's prefix:
 *
 * - `<prefix>:sandbox-pools` (a hash): per executor, its pool now (JSON, rewritten every second):
 *   workers ready, spares, how long it has had no ready worker, the quarantines in force.
 *   A report older than REPORT_STALE_MS is an executor gone (or frozen) and is not read.
 * - `<prefix>:metrics:sandbox` (a hash of counts, added to by every executor): worker restarts
 *   by reason, quarantines by tenant and scope, runs refused by a quarantine, and each tenant's
 *   waits for a worker (counts per bucket, sum, count).
 */
const SandboxPoolReportSchema = z.object({
  at: z.number(),
  size: z.number().int(),
  workers: z.number().int(),
  ready: z.number().int(),
  spares: z.number().int(),
  /** How long the pool has had no ready serving worker (ms). */
  unservedMs: z.number(),
  /** unservedMs is past the executor's bound (GUARDAGENT_SANDBOX_UNSERVED_MS): it cannot serve. */
  unserving: z.boolean(),
  quarantines: z.array(z.object({ tenant: z.string(), scope: z.enum(['tenant', 'version']), untilMs: z.number() })),
  rssMb: z.array(z.number()),
});
export type SandboxPoolReport = z.infer<typeof SandboxPoolReportSchema>;

/** A report not rewritten for this long is ignored (its executor is gone or frozen; /readyz then looks at the stage's workers). */
const REPORT_STALE_MS = 15_000;
/** Reports of executors gone this long are deleted by the next executor that reports. */
const REPORT_FORGOTTEN_MS = 3_600_000;

/** Counts to add to `<prefix>:metrics:sandbox` (see SandboxPoolReport). */
export interface SandboxCountDeltas {
  restarts: Record<string, number>;
  quarantines: Array<{ tenant: string; scope: string; count: number }>;
  quarantinedRuns: number;
  /** Per tenant: counts per bucket (upper bound in ms, or '+Inf'), the sum (ms) and the count. */
  waits: Array<{ tenant: string; buckets: Array<{ le: string; count: number }>; sumMs: number; count: number }>;
}

/** Write one executor's report and add its counts, in one round trip. */
export async function writeSandboxPoolReport(redis: Redis, prefix: string, executor: string, report: SandboxPoolReport, deltas: SandboxCountDeltas): Promise<void> {
  const k = keys(prefix);
  const pipeline = redis.multi();
  pipeline.hset(k.sandboxPools(), executor, JSON.stringify(report));
  const counts = k.metricsSandbox();
  for (const [reason, n] of Object.entries(deltas.restarts)) if (n > 0) pipeline.hincrby(counts, `restarts|${reason}`, n);
  for (const q of deltas.quarantines) if (q.count > 0) pipeline.hincrby(counts, `quarantines|${q.tenant}|${q.scope}`, q.count);
  if (deltas.quarantinedRuns > 0) pipeline.hincrby(counts, 'quarantined_runs', deltas.quarantinedRuns);
  for (const w of deltas.waits) {
    for (const b of w.buckets) if (b.count > 0) pipeline.hincrby(counts, `wait|${w.tenant}|${b.le}`, b.count);
    pipeline.hincrbyfloat(counts, `wait_sum_ms|${w.tenant}`, w.sumMs);
    pipeline.hincrby(counts, `wait_count|${w.tenant}`, w.count);
  }
  await pipeline.exec();
}

/** Remove an executor's report (it is closing). */
export async function removeSandboxPoolReport(redis: Redis, prefix: string, executor: string): Promise<void> {
  await redis.hdel(keys(prefix).sandboxPools(), executor);
}

/** The reports of executors alive now (rewritten within REPORT_STALE_MS); forgets long-gone ones. */
export async function readSandboxPoolReports(redis: Redis, prefix: string, now = Date.now()): Promise<Array<SandboxPoolReport & { executor: string }>> {
  const all = await redis.hgetall(keys(prefix).sandboxPools());
  const live: Array<SandboxPoolReport & { executor: string }> = [];
  const forgotten: string[] = [];
  for (const [executor, text] of Object.entries(all)) {
    let parsed: SandboxPoolReport | null = null;
    try {
      const result = SandboxPoolReportSchema.safeParse(JSON.parse(text));
      if (result.success) parsed = result.data;
    } catch {
      parsed = null;
    }
    if (!parsed || now - parsed.at > REPORT_FORGOTTEN_MS) forgotten.push(executor);
    else if (now - parsed.at <= REPORT_STALE_MS) live.push({ executor, ...parsed });
  }
  if (forgotten.length > 0) await redis.hdel(keys(prefix).sandboxPools(), ...forgotten);
  return live;
}

/** The counts of `<prefix>:metrics:sandbox`, read back into their parts. */
export async function readSandboxCounts(redis: Redis, prefix: string): Promise<{
  restarts: Record<string, number>;
  quarantines: Array<{ tenant: string; scope: string; count: number }>;
  quarantinedRuns: number;
  waits: Map<string, { buckets: Map<string, number>; sumMs: number; count: number }>;
}> {
  const all = await redis.hgetall(keys(prefix).metricsSandbox());
  const restarts: Record<string, number> = {};
  const quarantines: Array<{ tenant: string; scope: string; count: number }> = [];
  const waits = new Map<string, { buckets: Map<string, number>; sumMs: number; count: number }>();
  const waitOf = (tenant: string) => {
    let w = waits.get(tenant);
    if (!w) {
      w = { buckets: new Map(), sumMs: 0, count: 0 };
      waits.set(tenant, w);
    }
    return w;
  };
  let quarantinedRuns = 0;
  for (const [field, text] of Object.entries(all)) {
    const value = Number(text);
    const first = field.indexOf('|');
    const kind = first < 0 ? field : field.slice(0, first);
    const rest = first < 0 ? '' : field.slice(first + 1);
    // The last segment is never a tenant's: a tenant id may hold '|', the other parts do not.
    const last = rest.lastIndexOf('|');
    if (kind === 'restarts') restarts[rest] = value;
    else if (kind === 'quarantined_runs') quarantinedRuns = value;
    else if (kind === 'quarantines' && last > 0) quarantines.push({ tenant: rest.slice(0, last), scope: rest.slice(last + 1), count: value });
    else if (kind === 'wait' && last > 0) waitOf(rest.slice(0, last)).buckets.set(rest.slice(last + 1), value);
    else if (kind === 'wait_sum_ms') waitOf(rest).sumMs = value;
    else if (kind === 'wait_count') waitOf(rest).count = value;
  }
  return { restarts, quarantines, quarantinedRuns, waits };
}
