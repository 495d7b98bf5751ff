import { z } from 'zod';
import { ConfigError } from '@guardagent/errors';
import { isRedisTarget, keyPrefixFor } from './redis-target';
import { ENV_VARIABLES } from './env-variables';
import { MAX_SHARDS } from './shard-layout';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** BullMQ's job lock by default (GUARDAGENT_LOCK_DURATION_MS), renewed every half of it while a job runs. */
export const DEFAULT_LOCK_DURATION_MS = 6_000;
/** How often each worker looks for stalled jobs by default (GUARDAGENT_STALLED_INTERVAL_MS). */
export const DEFAULT_STALLED_INTERVAL_MS = 3_000;

/** Every knob a GuardAgent process reads from its environment. */
export const GuardConfigSchema = z.object({
  /**
   * Redis for queues, results and memory: `redis://…`, or a Redis Cluster's seed nodes as
   * `redis-cluster://host:port,host:port`. Unset: the CLI starts a private redis-server.
   */
  redisUrl: z.string().refine(isRedisTarget, 'must be redis://host:port, rediss://… or redis-cluster://host:port,host:port,…').optional(),
  /** Namespace of every Redis key and BullMQ queue (lets deployments share one Redis). */
  prefix: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).default('guardagent'),
  /**
   * Shards of the keys and queues (see ShardLayout): on a Redis Cluster, more shards than
   * primaries spread the load over them. Fixed for a deployment's data: every process must use
   * the same count, which the first process records in Redis (see checkShardLayout).
   */
  shards: z.coerce.number().int().min(1).max(MAX_SHARDS).default(1),
  /**
   * The shards this process's workers serve (`0,2`), for pinning workers to shards; absent: all.
   * Every shard still needs some process serving each stage (the gateway's /readyz says which).
   */
  workerShards: z
    .string()
    .regex(/^\s*\d{1,2}\s*(,\s*\d{1,2}\s*)*$/, 'must be shard numbers separated by commas, e.g. 0,2')
    .transform((list) => [...new Set(list.split(',').map((n) => Number(n.trim())))].sort((a, b) => a - b))
    .optional(),
  resultTtlSeconds: positiveInt(86_400),
  maxDebugRounds: z.coerce.number().int().min(0).max(10).default(3),
  concurrency: z.object({
    executor: positiveInt(64),
    memory: positiveInt(16),
    planner: positiveInt(8),
    codegen: positiveInt(8),
    debugger: positiveInt(8),
  }),
  sandbox: z.object({
    poolSize: z.coerce.number().int().min(1).max(64).optional(),
    memoryMb: positiveInt(64),
    cpuMs: positiveInt(1000),
    /** Default 4 s: ⅔ of the default lock, the cap every guard run's limits get (runtime.ts). */
    wallMs: positiveInt(4000),
    /** Recycle an isolate after this many runs (bounds heap growth from cached scripts). */
    maxRunsPerIsolate: positiveInt(5000),
    /** Warm workers kept beside the pool, to take over at once from one that dies or is recycled. */
    spares: z.coerce.number().int().min(0).max(8).default(1),
    /** Workers one version of a tenant's guard may kill or hang within crashWindowMs before it is quarantined. */
    crashBudget: positiveInt(3),
    /** Workers all of a tenant's guards together may kill or hang within crashWindowMs before the tenant is quarantined. */
    tenantCrashBudget: positiveInt(6),
    /** The crash budget's window, and how long a quarantine lasts. */
    crashWindowMs: positiveInt(60_000),
    /** A worker whose resident memory passes this (MB) is recycled between runs; 0: never. */
    workerMaxRssMb: z.coerce.number().int().min(0).default(768),
    /** `off`: workers serve without loading the toolbox data first (only for measuring what warming saves). */
    warmUp: z.enum(['on', 'off']).default('on'),
    /** How long an executor's pool may have no ready worker before the gateway's /readyz says it cannot serve (ms). */
    unservedMs: positiveInt(10_000),
  }),
  /**
   * Worker threads per executor process for the rails' heavy work: the filters of a job that
   * reads more than 16,384 characters, and the decision log's redaction of such a job.
   */
  railsWorkers: z.coerce.number().int().min(1).max(16).default(1),
  /**
   * BullMQ lock, renewed every half of it while a job runs. A job whose worker died or froze is
   * taken over within lockDurationMs + stalledIntervalMs (9 s by default) once another worker
   * runs. The lock tolerates the event loop being held up to half of it (3 s) past a renewal;
   * the rails hold it for a few milliseconds at most (heavier jobs go to their worker threads).
   */
  lockDurationMs: positiveInt(DEFAULT_LOCK_DURATION_MS),
  stalledIntervalMs: positiveInt(DEFAULT_STALLED_INTERVAL_MS),
  /** Most demonstrations one policy may hold (retrieval goes through an exact index: docs/performance.md, issue 39). */
  maxDemonstrations: positiveInt(100_000),
  /** Each tenant's default quotas at the gateway (the server admin can override them per tenant). */
  quotas: z.object({
    checksPerSecond: positiveInt(1000),
    checkBurst: positiveInt(2000),
    jobsInFlight: positiveInt(20_000),
    policies: positiveInt(1000),
    /** Bytes of Redis one tenant's checks may hold (8 GiB; see TenantQuotas.storedBytes in @guardagent/quotas). */
    storedBytes: z.coerce.number().int().positive().max(2 ** 50).default(8 * 1024 ** 3),
  }),
  /**
   * Micro-batching at the producers (client, gateway, CLI): checks submitted within the linger go
   * to the executor as one queue job of at most chunkMax checks. Linger 0 waits only for the event
   * loop to run what is already queued, so a lone check goes at once.
   */
  chunks: z.object({
    max: z.coerce.number().int().min(1).max(500).default(128),
    lingerMs: z.coerce.number().min(0).max(50).default(0),
  }),
  /**
   * The decision log: `policies` records the decisions of policies with `decisionLog: true`, `all`
   * of every policy, `off` none. Each tenant's log keeps at most maxEntries entries, none older
   * than maxAgeSeconds.
   */
  decisionLog: z.object({
    record: z.enum(['policies', 'all', 'off']).default('policies'),
    maxEntries: positiveInt(100_000),
    maxAgeSeconds: positiveInt(7 * 86_400),
  }),
  gatewayPort: z.coerce.number().int().min(0).max(65_535).default(8080),
  adminKey: z.string().min(16, 'GUARDAGENT_ADMIN_KEY must be at least 16 characters').optional(),
  /**
   * A key that reads /metrics and nothing else, for a Prometheus scrape (a bearer token from a
   * Secret): the admin key also reads /metrics, but a scraper should not hold it.
   */
  metricsKey: z.string().min(16, 'GUARDAGENT_METRICS_KEY must be at least 16 characters').optional(),
  /**
   * Where the gateway POSTs each new held call (signed with HMAC-SHA256), for tenants without a
   * webhook of their own; `privateHosts: allow` lets tenants' own webhooks reach private,
   * loopback and link-local addresses (the deployment's is never restricted).
   */
  approvalWebhook: z.object({
    url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).optional(),
    secret: z.string().min(16, 'GUARDAGENT_APPROVAL_WEBHOOK_SECRET must be at least 16 characters').optional(),
    privateHosts: z.enum(['deny', 'allow']).default('deny'),
  }),
});
export type GuardConfig = z.output<typeof GuardConfigSchema>;

/** Config path → environment variable, from the list (ENV_VARIABLES) of every variable. */
const ENV_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  ENV_VARIABLES.filter((variable) => 'config' in variable).map((variable) => [variable.key, variable.name]),
);

/** Environment variable of each config field, for docs and error messages. */
export const CONFIG_ENV_NAMES: Readonly<Record<string, string>> = ENV_NAMES;

/** Read the config from environment variables; a bad value is a ConfigError naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<GuardConfig> = {}): GuardConfig {
  // Each listed config variable at its path (`sandbox.wallMs` → raw.sandbox.wallMs); empty reads as unset.
  const raw: Record<string, unknown> = {};
  for (const [path, name] of Object.entries(ENV_NAMES)) {
    const keys = path.split('.');
    const field = keys.pop() as string;
    let parent = raw;
    for (const key of keys) {
      parent[key] ??= {};
      parent = parent[key] as Record<string, unknown>;
    }
    const value = env[name];
    parent[field] = value === '' ? undefined : value;
  }
  const parsed = GuardConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const path = issue.path.join('.');
      return `${ENV_NAMES[path] ?? path}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`, { problems });
  }
  const config = { ...parsed.data, ...overrides };
  const outside = config.workerShards?.filter((shard) => shard >= config.shards) ?? [];
  if (outside.length > 0) {
    const problem = `GUARDAGENT_WORKER_SHARDS: shard ${outside.join(', ')} does not exist (GUARDAGENT_SHARDS is ${config.shards}: shards 0 to ${config.shards - 1})`;
    throw new ConfigError(`Invalid configuration: ${problem}`, { problems: [problem] });
  }
  if (config.metricsKey !== undefined && config.metricsKey === config.adminKey) {
    const problem = 'GUARDAGENT_METRICS_KEY: must differ from GUARDAGENT_ADMIN_KEY (a scraper holding it could do everything the admin key does)';
    throw new ConfigError(`Invalid configuration: ${problem}`, { problems: [problem] });
  }
  if ((config.approvalWebhook.url === undefined) !== (config.approvalWebhook.secret === undefined)) {
    const problem = 'GUARDAGENT_APPROVAL_WEBHOOK_URL and GUARDAGENT_APPROVAL_WEBHOOK_SECRET: set both or neither (every webhook is signed)';
    throw new ConfigError(`Invalid configuration: ${problem}`, { problems: [problem] });
  }
  // On a cluster every key carries the prefix as a hash tag (see keyPrefixFor).
  return { ...config, prefix: keyPrefixFor(config.prefix, config.redisUrl) };
}
