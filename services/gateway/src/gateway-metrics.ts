import type { Redis } from 'ioredis';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import { keys, readSandboxCounts, readSandboxPoolReports, type QueueSet } from '@guardagent/queue';
import type { Decision } from '@guardagent/schemas';

const SEEN_LIMIT = 50_000;

/**
 * Prometheus metrics of one gateway, in its own registry (several gateways can share a
 * process, as in tests). Queue depths and decision counts are read from Redis at scrape time,
 * so they cover every process; latencies and token usage come from decisions this gateway saw.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly stageSeconds: Histogram<'stage'>;
  private readonly llmTokens: Counter<'kind'>;
  private readonly llmCalls: Counter;
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  /** Decisions already counted, so reading one twice does not count its tokens twice. */
  private readonly seen = new Set<string>();

  /**
   * `shards`: every shard's queues (see ShardLayout); counts and depths are summed over them.
   * `prefix`: the deployment's, under which the executors report their sandbox pools.
   */
  constructor(redis: Redis, shards: readonly QueueSet[], prefix: string) {
    const registers = [this.registry];
    // Each shard keeps its own counts (they are written with its decisions): read them all.
    const entriesOf = async (key: (prefix: string) => string) => (await Promise.all(shards.map((queues) => redis.hgetall(key(queues.prefix))))).flatMap((hash) => Object.entries(hash));
    collectDefaultMetrics({ register: this.registry, prefix: 'guardagent_gateway_' });

    new Gauge({
      name: 'guardagent_queue_jobs',
      help: 'Jobs per stage queue and state (waiting, active, delayed, failed), across all processes',
      labelNames: ['stage', 'state'],
      registers,
      async collect() {
        const totals = new Map<string, { stage: string; state: string; value: number }>();
        for (const depths of await Promise.all(shards.map((queues) => queues.depths()))) {
          for (const [stage, counts] of Object.entries(depths)) {
            for (const [state, value] of Object.entries(counts)) {
              const total = totals.get(`${stage}|${state}`) ?? { stage, state, value: 0 };
              total.value += value;
              totals.set(`${stage}|${state}`, total);
            }
          }
        }
        this.reset();
        for (const { stage, state, value } of totals.values()) this.set({ stage, state }, value);
      },
    });

    new Counter({
      name: 'guardagent_decisions_total',
      help: 'Decisions stored, by tenant, policy, decision and status (all processes; from Redis)',
      labelNames: ['tenant', 'policy', 'decision', 'status'],
      registers,
      async collect() {
        // The authoritative counts live in Redis (written by the finalizer): mirror them.
        const all = await entriesOf((prefix) => keys(prefix).metricsDecisions());
        this.reset();
        for (const [field, value] of all) {
          const [tenant, policy, decision, status] = field.split('|');
          if (status === undefined) continue;
          this.inc({ tenant, policy, decision, status }, Number(value));
        }
      },
    });

    new Counter({
      name: 'guardagent_shadow_decisions_total',
      help: "Decisions whose policy had a shadow version, by tenant, policy and whether the shadow agreed (agree, disagree, undecided) (all processes; from Redis)",
      labelNames: ['tenant', 'policy', 'outcome'],
      registers,
      async collect() {
        const all = await entriesOf((prefix) => keys(prefix).metricsShadow());
        this.reset();
        for (const [field, value] of all) {
          const [tenant, policy, outcome] = field.split('|');
          if (outcome === undefined) continue;
          this.inc({ tenant, policy, outcome }, Number(value));
        }
      },
    });

    const takeovers = async () => entriesOf((prefix) => keys(prefix).metricsTakeovers());
    for (const [what, help] of [
      ['stalled', 'Stage jobs whose worker died or froze, taken over to run again, by stage (all processes; from Redis)'],
      ['recovered', 'Stage jobs taken over from a stalled worker that then finished, by stage (all processes; from Redis)'],
      ['failed_after_takeover', 'Stage jobs taken over from a stalled worker that then failed and were answered fail-closed, by stage (all processes; from Redis)'],
    ] as const) {
      new Counter({
        name: `guardagent_jobs_${what}_total`,
        help,
        labelNames: ['stage'],
        registers,
        async collect() {
          this.reset();
          for (const [field, value] of await takeovers()) {
            const [kind, stage] = field.split('|');
            if (kind === what && stage) this.inc({ stage }, Number(value));
          }
        },
      });
    }

    this.sandboxMetrics(redis, prefix, registers);

    this.stageSeconds = new Histogram({
      name: 'guardagent_stage_duration_seconds',
      help: 'Time per pipeline stage of checks answered through this gateway (from decision timings)',
      labelNames: ['stage'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.llmTokens = new Counter({
      name: 'guardagent_llm_tokens_total',
      help: 'LLM tokens used by decisions this gateway saw, by kind (prompt, completion)',
      labelNames: ['kind'],
      registers,
    });
    this.llmCalls = new Counter({
      name: 'guardagent_llm_calls_total',
      help: 'LLM calls made for decisions this gateway saw',
      registers,
    });
    this.httpRequests = new Counter({
      name: 'guardagent_http_requests_total',
      help: 'HTTP requests by method, route and status code',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
  }

  /**
   * The executors' sandbox pools (see sandbox-pool-reports.ts in @guardagent/queue): counts from
   * every executor since the deployment began, gauges from the executors alive now. Tenant labels
   * (quarantines, waits) are bounded like the decision counts' (one tenant, a few series); guard
   * versions are never labels: a tenant could mint them without end.
   */
  private sandboxMetrics(redis: Redis, prefix: string, registers: Registry[]): void {
    let counts: Promise<Awaited<ReturnType<typeof readSandboxCounts>>> | null = null;
    let reports: Promise<Awaited<ReturnType<typeof readSandboxPoolReports>>> | null = null;
    // One read of each per scrape, shared by the metrics below (reset when the scrape is rendered).
    const countsNow = () => (counts ??= readSandboxCounts(redis, prefix).finally(() => setImmediate(() => (counts = null))));
    const reportsNow = () => (reports ??= readSandboxPoolReports(redis, prefix).finally(() => setImmediate(() => (reports = null))));
    new Counter({
      name: 'guardagent_sandbox_worker_restarts_total',
      help: 'Sandbox workers that went and were replaced, by reason: died (a crash, an OOM kill), hung (killed at a run deadline), recycled (past the memory bound) (all executors; from Redis)',
      labelNames: ['reason'],
      registers,
      async collect() {
        const { restarts } = await countsNow();
        this.reset();
        for (const reason of ['died', 'hung', 'recycled']) this.inc({ reason }, restarts[reason] ?? 0);
      },
    });
    new Counter({
      name: 'guardagent_sandbox_quarantines_total',
      help: "Quarantines started, by tenant and scope (tenant: all its guards; version: one version of its guard), after the tenant's guards killed or hung workers past the crash budget (all executors; from Redis)",
      labelNames: ['tenant', 'scope'],
      registers,
      async collect() {
        const { quarantines } = await countsNow();
        this.reset();
        for (const q of quarantines) this.inc({ tenant: q.tenant, scope: q.scope }, q.count);
      },
    });
    new Counter({
      name: 'guardagent_sandbox_quarantined_runs_total',
      help: 'Guard runs refused without a worker because their tenant or version was quarantined (all executors; from Redis)',
      registers,
      async collect() {
        const { quarantinedRuns } = await countsNow();
        this.reset();
        this.inc(quarantinedRuns);
      },
    });
    new Gauge({
      name: 'guardagent_sandbox_quarantined',
      help: 'Quarantines in force now, by tenant and scope: the number of live executors that refuse its runs',
      labelNames: ['tenant', 'scope'],
      registers,
      async collect() {
        this.reset();
        for (const report of await reportsNow()) for (const q of report.quarantines) this.inc({ tenant: q.tenant, scope: q.scope });
      },
    });
    new Gauge({
      name: 'guardagent_sandbox_workers',
      help: 'Sandbox workers of the live executors, by state: ready (serving, warm), spare (warm, waiting to take over), starting (warming up)',
      labelNames: ['state'],
      registers,
      async collect() {
        const totals = { ready: 0, spare: 0, starting: 0 };
        for (const r of await reportsNow()) {
          totals.ready += r.ready;
          totals.spare += r.spares;
          totals.starting += Math.max(0, r.workers - r.ready - r.spares);
        }
        this.reset();
        for (const [state, value] of Object.entries(totals)) this.set({ state }, value);
      },
    });
    new Gauge({
      name: 'guardagent_sandbox_unserved_seconds',
      help: 'The longest any live executor has had no ready sandbox worker (0 while every one can run guard code)',
      registers,
      async collect() {
        this.set(Math.max(0, ...(await reportsNow()).map((r) => r.unservedMs)) / 1000);
      },
    });
    const waitName = 'guardagent_sandbox_wait_seconds';
    const waitHelp = "Time each tenant's guard runs waited for a sandbox worker (all executors; from Redis)";
    // A histogram whose buckets are counted by the executors: prom-client's Histogram only
    // observes, so this one hands its values to the registry as a histogram's would be.
    const waits = {
      name: waitName,
      help: waitHelp,
      get: async () => {
        const values: Array<{ metricName: string; labels: Record<string, string>; value: number }> = [];
        for (const [tenant, w] of (await countsNow()).waits) {
          const bounds = [...w.buckets.keys()].filter((le) => le !== '+Inf').map(Number).sort((a, b) => a - b);
          let cumulative = 0;
          for (const le of bounds) {
            cumulative += w.buckets.get(String(le)) ?? 0;
            values.push({ metricName: `${waitName}_bucket`, labels: { tenant, le: String(le / 1000) }, value: cumulative });
          }
          values.push({ metricName: `${waitName}_bucket`, labels: { tenant, le: '+Inf' }, value: w.count });
          values.push({ metricName: `${waitName}_sum`, labels: { tenant }, value: w.sumMs / 1000 });
          values.push({ metricName: `${waitName}_count`, labels: { tenant }, value: w.count });
        }
        return { name: waitName, help: waitHelp, type: 'histogram', values, aggregator: 'sum' };
      },
    };
    for (const registry of registers) registry.registerMetric(waits as unknown as Metric);
  }

  /** Record a decision's timings and LLM usage, once per decision id. */
  observeDecision(decision: Decision): void {
    if (this.seen.has(decision.id)) return;
    if (this.seen.size >= SEEN_LIMIT) this.seen.clear();
    this.seen.add(decision.id);
    for (const [stage, ms] of Object.entries(decision.timings)) {
      if (Number.isFinite(ms) && ms >= 0) this.stageSeconds.observe({ stage }, ms / 1000);
    }
    if (decision.usage.promptTokens) this.llmTokens.inc({ kind: 'prompt' }, decision.usage.promptTokens);
    if (decision.usage.completionTokens) this.llmTokens.inc({ kind: 'completion' }, decision.usage.completionTokens);
    if (decision.usage.calls) this.llmCalls.inc(decision.usage.calls);
  }

  observeRequest(method: string, route: string, status: number): void {
    this.httpRequests.inc({ method, route, status: String(status) });
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
