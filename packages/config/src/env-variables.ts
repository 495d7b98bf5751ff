/**
 * Every environment variable GuardAgent reads, listed once: its name, its default (as text), who
 * reads it and what it means. `loadConfig` reads the ones with `config: true` into GuardConfig at
 * their key; everything else reads its variable through `readEnv(key)`, so no package names a
 * GuardAgent variable by itself. docs/operations.md's table is generated from this list
 * (`npm run docs:env`), and packages/config/test/env-variables.test.ts fails when either drifts.
 *
 * Defaults and meanings are Markdown (they go into the docs as written).
 */

/** Who reads a variable. `(internal)` ones are not for operators to set. */
export type EnvReader =
  | 'all processes'
  | 'workers'
  | 'executor'
  | 'gateway'
  | 'producers'
  | 'CLI'
  | 'LLM'
  | 'sandbox worker (internal)'
  | 'tests (internal)'
  | 'npm (internal)'
  | 'OpenTelemetry SDK';

export interface EnvVariable {
  /** Config path (`sandbox.wallMs`) when `config` is true, else the name readEnv knows it by. */
  readonly key: string;
  readonly name: string;
  /** The default as text: a value, `unset`, or what happens when it is unset. */
  readonly default: string;
  readonly readBy: readonly EnvReader[];
  readonly meaning: string;
  /** Read by loadConfig into GuardConfig at `key`. */
  readonly config?: true;
}

export const ENV_VARIABLES = [
  {
    key: 'redisUrl',
    name: 'REDIS_URL',
    default: 'unset → private `redis-server` (CLI only)',
    readBy: ['all processes'],
    config: true,
    meaning:
      'Redis ≥ 6.2 with `maxmemory-policy noeviction`; standalone services require it. A Redis Cluster: `redis-cluster://host:port,host:port` (seed nodes; see `infra/README.md`)',
  },
  { key: 'prefix', name: 'GUARDAGENT_PREFIX', default: '`guardagent`', readBy: ['all processes'], config: true, meaning: 'namespace of every key and queue' },
  {
    key: 'shards',
    name: 'GUARDAGENT_SHARDS',
    default: '`1`',
    readBy: ['all processes'],
    config: true,
    meaning:
      "shards of the keys and queues (1–64): each tenant's data and the stage queues its jobs travel on sit under its shard's prefix, a hash tag of its own on a Redis Cluster, so more shards than primaries spread GuardAgent over them (`infra/README.md`). Every process must use the same count: the first one records it in Redis and a process with another count refuses to start (`CONFIG_INVALID`). `guardagent shards` prints each shard's prefix and wait lists. One shard keeps the keys of a deployment that never set it",
  },
  {
    key: 'workerShards',
    name: 'GUARDAGENT_WORKER_SHARDS',
    default: 'unset (all)',
    readBy: ['workers'],
    config: true,
    meaning:
      "the shards this process's workers serve, e.g. `0,2` (to pin executors to shards); every shard still needs a worker of each stage somewhere (`/readyz` says which is missing)",
  },
  {
    key: 'llm.baseUrl',
    name: 'GUARDAGENT_LLM_BASE_URL',
    default: 'unset (no LLM)',
    readBy: ['LLM'],
    meaning: 'any OpenAI-compatible endpoint, e.g. `http://localhost:11434/v1` (Ollama), `:8000/v1` (vLLM); with only an API key set, `https://api.openai.com/v1`',
  },
  { key: 'llm.model', name: 'GUARDAGENT_LLM_MODEL', default: 'required with a base URL; else `gpt-4o`', readBy: ['LLM'], meaning: 'model name' },
  { key: 'llm.apiKey', name: 'GUARDAGENT_LLM_API_KEY', default: 'falls back to `OPENAI_API_KEY`', readBy: ['LLM'], meaning: 'never logged, traced or put in decisions' },
  {
    key: 'openaiApiKey',
    name: 'OPENAI_API_KEY',
    default: 'unset',
    readBy: ['LLM'],
    meaning: 'the LLM key when `GUARDAGENT_LLM_API_KEY` is unset; with neither key, keyless local servers get `none`',
  },
  { key: 'llm.timeoutMs', name: 'GUARDAGENT_LLM_TIMEOUT_MS', default: '`60000`', readBy: ['LLM'], meaning: 'timeout of one LLM call' },
  { key: 'llm.maxRetries', name: 'GUARDAGENT_LLM_MAX_RETRIES', default: '`2`', readBy: ['LLM'], meaning: 'retries of one LLM call (on connection errors, 408/409/429/5xx)' },
  { key: 'resultTtlSeconds', name: 'GUARDAGENT_RESULT_TTL_SECONDS', default: '`86400`', readBy: ['all processes'], config: true, meaning: 'how long decisions can be read by id' },
  {
    key: 'maxDebugRounds',
    name: 'GUARDAGENT_MAX_DEBUG_ROUNDS',
    default: '`3`',
    readBy: ['workers'],
    config: true,
    meaning: "debugger rounds per job (a policy's `limits.maxDebugRounds` wins)",
  },
  {
    key: 'concurrency.executor',
    name: 'GUARDAGENT_EXECUTOR_CONCURRENCY',
    default: '`64`',
    readBy: ['workers'],
    config: true,
    meaning: "executor jobs in flight per process (with several shards, each shard's worker takes its share, rounded up)",
  },
  {
    key: 'concurrency.memory',
    name: 'GUARDAGENT_MEMORY_CONCURRENCY',
    default: '`16`',
    readBy: ['workers'],
    config: true,
    meaning: "memory jobs in flight per process (with several shards, each shard's worker takes its share, rounded up)",
  },
  {
    key: 'concurrency.planner',
    name: 'GUARDAGENT_PLANNER_CONCURRENCY',
    default: '`8`',
    readBy: ['workers'],
    config: true,
    meaning: "planner jobs in flight per process (with several shards, each shard's worker takes its share, rounded up)",
  },
  {
    key: 'concurrency.codegen',
    name: 'GUARDAGENT_CODEGEN_CONCURRENCY',
    default: '`8`',
    readBy: ['workers'],
    config: true,
    meaning: "codegen jobs in flight per process (with several shards, each shard's worker takes its share, rounded up)",
  },
  {
    key: 'concurrency.debugger',
    name: 'GUARDAGENT_DEBUGGER_CONCURRENCY',
    default: '`8`',
    readBy: ['workers'],
    config: true,
    meaning: "debugger jobs in flight per process (with several shards, each shard's worker takes its share, rounded up)",
  },
  {
    key: 'decisionLog.record',
    name: 'GUARDAGENT_DECISION_LOG',
    default: '`policies`',
    readBy: ['executor'],
    config: true,
    meaning: 'which decisions the executors record: `policies` (those with `decisionLog: true`), `all`, `off`',
  },
  {
    key: 'decisionLog.maxEntries',
    name: 'GUARDAGENT_DECISION_LOG_MAX_ENTRIES',
    default: '`100000`',
    readBy: ['executor'],
    config: true,
    meaning:
      "each tenant's decision log keeps at most this many entries (trimmed exactly when the log is written); an entry over 200,000 characters keeps the decision without its job",
  },
  {
    key: 'decisionLog.maxAgeSeconds',
    name: 'GUARDAGENT_DECISION_LOG_MAX_AGE_SECONDS',
    default: '`604800` (7 days)',
    readBy: ['executor'],
    config: true,
    meaning: "each tenant's decision log keeps no entry older than this (trimmed exactly when the log is written)",
  },
  {
    key: 'chunks.max',
    name: 'GUARDAGENT_CHUNK_MAX',
    default: '`128`',
    readBy: ['producers'],
    config: true,
    meaning:
      'micro-batching at the producers (client, gateway, CLI): checks submitted together travel to the executor as one queue job of at most this many (1–500); a lone check goes as its own job',
  },
  {
    key: 'chunks.lingerMs',
    name: 'GUARDAGENT_CHUNK_LINGER_MS',
    default: '`0`',
    readBy: ['producers'],
    config: true,
    meaning:
      'how long an open chunk waits for more checks; `0` waits only until the event loop has run what is already queued (no timer), so an idle check is not delayed',
  },
  {
    key: 'railsWorkers',
    name: 'GUARDAGENT_RAILS_WORKERS',
    default: '`1`',
    readBy: ['executor'],
    config: true,
    meaning:
      "worker threads per executor for the rails' heavy work: the filters of a job that reads more than 16,384 characters, and the decision log's redaction of such a job, run there, off the event loop (1–16)",
  },
  {
    key: 'sandbox.poolSize',
    name: 'GUARDAGENT_SANDBOX_POOL_SIZE',
    default: 'number of cores',
    readBy: ['executor'],
    config: true,
    meaning: 'sandbox worker processes per executor (guard code and its toolbox run there)',
  },
  {
    key: 'sandbox.memoryMb',
    name: 'GUARDAGENT_SANDBOX_MEMORY_MB',
    default: '`64`',
    readBy: ['executor'],
    config: true,
    meaning: "memory limit of one guard run's isolate (MB)",
  },
  { key: 'sandbox.cpuMs', name: 'GUARDAGENT_SANDBOX_CPU_MS', default: '`1000`', readBy: ['executor'], config: true, meaning: 'CPU time limit of one guard run' },
  {
    key: 'sandbox.wallMs',
    name: 'GUARDAGENT_SANDBOX_WALL_MS',
    default: '`4000`',
    readBy: ['executor'],
    config: true,
    meaning:
      "wall-clock limit of one guard run; a policy's own `limits` are capped at ⅔ of the lock duration; past `wallMs` + 1 s the worker is killed (`SANDBOX_HUNG`)",
  },
  {
    key: 'sandbox.maxRunsPerIsolate',
    name: 'GUARDAGENT_SANDBOX_MAX_RUNS_PER_ISOLATE',
    default: '`5000`',
    readBy: ['executor', 'sandbox worker (internal)'],
    config: true,
    meaning: 'isolates are recycled after this many runs (the executor passes it on to its sandbox workers under the same name)',
  },
  {
    key: 'sandbox.spares',
    name: 'GUARDAGENT_SANDBOX_SPARES',
    default: '`1`',
    readBy: ['executor'],
    config: true,
    meaning:
      'warm sandbox workers kept beside the pool (0–8): a worker that dies, hangs or passes its memory bound is replaced at once by a warm one, and the next spare warms up while nobody waits for it. Each costs one idle worker\'s memory (about 200 MB with the toolbox data)',
  },
  {
    key: 'sandbox.crashBudget',
    name: 'GUARDAGENT_SANDBOX_CRASH_BUDGET',
    default: '`3`',
    readBy: ['executor'],
    config: true,
    meaning:
      "sandbox workers one version of a tenant's guard (a program or policy digest) may kill or hang within the crash window; past it that version is quarantined for one window: its runs end at once, `SANDBOX_QUARANTINED`, denied under any `failMode`, without a worker. Counted per executor",
  },
  {
    key: 'sandbox.tenantCrashBudget',
    name: 'GUARDAGENT_SANDBOX_TENANT_CRASH_BUDGET',
    default: '`6`',
    readBy: ['executor'],
    config: true,
    meaning:
      "sandbox workers all of a tenant's guards together may kill or hang within the crash window; past it the whole tenant is quarantined for one window. A tenant that killed a worker within the window runs only while the pool is whole (every worker and spare warm). Counted per executor",
  },
  {
    key: 'sandbox.crashWindowMs',
    name: 'GUARDAGENT_SANDBOX_CRASH_WINDOW_MS',
    default: '`60000`',
    readBy: ['executor'],
    config: true,
    meaning: 'the window of the two crash budgets, and how long a quarantine lasts',
  },
  {
    key: 'sandbox.workerMaxRssMb',
    name: 'GUARDAGENT_SANDBOX_WORKER_MAX_RSS_MB',
    default: '`768`',
    readBy: ['executor'],
    config: true,
    meaning:
      "a sandbox worker whose resident memory passes this after a run is recycled: sent nothing more, killed once its runs have ended, the spare taking its place (`0`: never). One run's isolate is bounded by `memoryMb`",
  },
  {
    key: 'sandbox.unservedMs',
    name: 'GUARDAGENT_SANDBOX_UNSERVED_MS',
    default: '`10000`',
    readBy: ['gateway'],
    config: true,
    meaning: "how long an executor's pool may have no ready sandbox worker before the gateway's `/readyz` answers 503 (`sandbox.unserving` names the executor)",
  },
  {
    key: 'sandbox.warmUp',
    name: 'GUARDAGENT_SANDBOX_WARM_UP',
    default: '`on`',
    readBy: ['executor', 'sandbox worker (internal)'],
    config: true,
    meaning:
      "`on`: a sandbox worker loads every toolbox pack's data (WordNet, the classifier's indexes, the parsers) and runs one guard program before it takes runs, so its first run costs what its hundredth does; `off` only for measuring what that saves (the executor passes `off` on to its sandbox workers under the same name)",
  },
  {
    key: 'sandboxWorker.hostFunctions',
    name: 'GUARDAGENT_SANDBOX_HOST_FUNCTIONS',
    default: 'set by the executor',
    readBy: ['sandbox worker (internal)'],
    meaning: "the host functions the worker's executor serves (comma-separated names); defined in `packages/pipeline/src/sandbox/sandbox-worker-env.ts`",
  },
  {
    key: 'sandboxWorker',
    name: 'GUARDAGENT_SANDBOX_WORKER',
    default: 'unset (source)',
    readBy: ['tests (internal)'],
    meaning:
      'code run from its TypeScript sources (tests, `tsx` scripts) forks the sandbox worker\'s source through tsx; `built` forks the built worker instead (about half the start-up time), which the test setup asks for right after it has built',
  },
  {
    key: 'lockDurationMs',
    name: 'GUARDAGENT_LOCK_DURATION_MS',
    default: '`6000`',
    readBy: ['workers'],
    config: true,
    meaning:
      "BullMQ's job lock, renewed every half of it while a job runs: a dead or frozen worker's job is taken over within it plus `GUARDAGENT_STALLED_INTERVAL_MS` (9 s) by another worker; policy `limits` are capped at ⅔ of the lock",
  },
  {
    key: 'stalledIntervalMs',
    name: 'GUARDAGENT_STALLED_INTERVAL_MS',
    default: '`3000`',
    readBy: ['workers'],
    config: true,
    meaning: 'how often each worker looks for stalled jobs (see `GUARDAGENT_LOCK_DURATION_MS`)',
  },
  {
    key: 'quotas.checksPerSecond',
    name: 'GUARDAGENT_QUOTA_CHECKS_PER_SECOND',
    default: '`1000`',
    readBy: ['gateway'],
    config: true,
    meaning:
      "each tenant's check rate at the gateway (token bucket shared by gateways), for live checks, batches and replays alike; a live check over it: 429 `QUOTA_EXCEEDED` with `Retry-After`, nothing queued. Batches and replays wait for room, and leave half of the burst and of the in-flight room to the tenant's live checks",
  },
  { key: 'quotas.checkBurst', name: 'GUARDAGENT_QUOTA_CHECK_BURST', default: '`2000`', readBy: ['gateway'], config: true, meaning: 'checks a tenant may send at once after a quiet spell' },
  { key: 'quotas.jobsInFlight', name: 'GUARDAGENT_QUOTA_JOBS_IN_FLIGHT', default: '`20000`', readBy: ['gateway'], config: true, meaning: "each tenant's checks submitted and not yet decided" },
  { key: 'quotas.policies', name: 'GUARDAGENT_QUOTA_POLICIES', default: '`1000`', readBy: ['gateway'], config: true, meaning: 'policies one tenant may store' },
  {
    key: 'quotas.storedBytes',
    name: 'GUARDAGENT_QUOTA_STORED_BYTES',
    default: '`8589934592` (8 GiB)',
    readBy: ['gateway'],
    config: true,
    meaning:
      'bytes of Redis one tenant\'s checks (live, batches, replays) may hold: each admitted check counts its job\'s JSON plus a quarter (the allocator\'s rounding) and 1,200 bytes (its decision and bookkeeping) until its decision expires (`GUARDAGENT_RESULT_TTL_SECONDS`). Past it: 429 `QUOTA_EXCEEDED` (`details.quota: "storedBytes"`, `Retry-After` when the oldest charges expire); a request larger than the whole quota: 413 `PAYLOAD_TOO_LARGE` (`details.quota: "storedBytes"`). 8 GiB holds about 3.5 million checks of 1 KB, 40 a second sustained with the 24 h TTL: raise it for heavier tenants (or shorten the TTL). All five quotas can be set per tenant: `PUT /v1/tenants/:id/quotas` (server admin key); a tenant reads its own, and what it holds (`storedBytes`, `inFlight`), at `GET /v1/quotas`',
  },
  {
    key: 'maxDemonstrations',
    name: 'GUARDAGENT_MAX_DEMONSTRATIONS',
    default: '`100000`',
    readBy: ['all processes'],
    config: true,
    meaning: 'demonstrations one policy may hold; a write past it answers 429 `QUOTA_EXCEEDED` and writes nothing (retrieval goes through an exact index: docs/performance.md, issue 39)',
  },
  {
    key: 'gatewayPort',
    name: 'GUARDAGENT_GATEWAY_PORT',
    default: '`8080`',
    readBy: ['gateway'],
    config: true,
    meaning: 'the port the HTTP gateway listens on',
  },
  {
    key: 'gatewayHost',
    name: 'GUARDAGENT_GATEWAY_HOST',
    default: '`0.0.0.0` (standalone; `guardagent up` binds 127.0.0.1)',
    readBy: ['gateway'],
    meaning: 'the address the standalone HTTP gateway listens on',
  },
  {
    key: 'adminKey',
    name: 'GUARDAGENT_ADMIN_KEY',
    default: 'unset',
    readBy: ['gateway', 'CLI'],
    config: true,
    meaning:
      "server admin key (≥ 16 characters): creates tenants and manages their keys, reads `/metrics`, acts as tenant `default` with every scope. The CLI's gateway commands send it (`guardagent tenants`; the others when `GUARDAGENT_API_KEY` is unset)",
  },
  {
    key: 'metricsKey',
    name: 'GUARDAGENT_METRICS_KEY',
    default: 'unset',
    readBy: ['gateway'],
    config: true,
    meaning:
      'a key (≥ 16 characters, not the admin key) that reads `/metrics` and nothing else: give it to Prometheus as a bearer token (`infra/k8s/alternatives/gateway-podmonitor.yaml`, `infra/prometheus-scrape.yaml`)',
  },
  {
    key: 'approvalWebhook.url',
    name: 'GUARDAGENT_APPROVAL_WEBHOOK_URL',
    default: 'unset',
    readBy: ['gateway'],
    config: true,
    meaning: "where the gateway POSTs each new held call (signed with HMAC-SHA256), for tenants without a webhook of their own (http or https; set with the secret)",
  },
  {
    key: 'approvalWebhook.secret',
    name: 'GUARDAGENT_APPROVAL_WEBHOOK_SECRET',
    default: 'unset',
    readBy: ['gateway'],
    config: true,
    meaning: "the deployment webhook's HMAC-SHA256 signing secret (≥ 16 characters; set with the URL)",
  },
  {
    key: 'approvalWebhook.privateHosts',
    name: 'GUARDAGENT_APPROVAL_WEBHOOK_PRIVATE_HOSTS',
    default: '`deny`',
    readBy: ['gateway'],
    config: true,
    meaning: "`allow` lets tenants' own webhooks reach private, loopback and link-local addresses (the deployment's is never restricted)",
  },
  {
    key: 'gatewayUrl',
    name: 'GUARDAGENT_URL',
    default: '`http://127.0.0.1:8080`',
    readBy: ['CLI'],
    meaning: "the gateway the CLI's gateway commands talk to (`--gateway` wins)",
  },
  {
    key: 'apiKey',
    name: 'GUARDAGENT_API_KEY',
    default: 'unset',
    readBy: ['CLI'],
    meaning: "the key the CLI's gateway commands send: a tenant's key with the scope the command needs (else `GUARDAGENT_ADMIN_KEY`, which acts as tenant `default`)",
  },
  {
    key: 'npmCommand',
    name: 'npm_command',
    default: 'set by npm',
    readBy: ['npm (internal)'],
    meaning: 'tells the CLI that npm started it, so it watches the npm process and exits when that one is killed',
  },
  {
    key: 'otel.endpoint',
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    default: 'unset (no export)',
    readBy: ['OpenTelemetry SDK'],
    meaning:
      "turns on trace export through OpenTelemetry's NodeSDK; one trace per guard job across all stages. Without it (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or `OTEL_TRACES_EXPORTER`) no SDK starts and spans cost nothing",
  },
  { key: 'otel.tracesEndpoint', name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', default: 'unset', readBy: ['OpenTelemetry SDK'], meaning: 'like `OTEL_EXPORTER_OTLP_ENDPOINT`, for traces only' },
  { key: 'otel.tracesExporter', name: 'OTEL_TRACES_EXPORTER', default: '`otlp`', readBy: ['OpenTelemetry SDK'], meaning: 'the standard exporter setting (`none`: no export)' },
  { key: 'otel.protocol', name: 'OTEL_EXPORTER_OTLP_PROTOCOL', default: '`http/protobuf`', readBy: ['OpenTelemetry SDK'], meaning: 'the standard exporter protocol setting' },
  {
    key: 'otel.headers',
    name: 'OTEL_EXPORTER_OTLP_HEADERS',
    default: 'none',
    readBy: ['OpenTelemetry SDK'],
    meaning: 'the standard exporter headers (e.g. `OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20…`)',
  },
  {
    key: 'otel.serviceName',
    name: 'OTEL_SERVICE_NAME',
    default: 'each process names itself: `guardagent-gateway`, `guardagent-executor`, …',
    readBy: ['OpenTelemetry SDK'],
    meaning: 'override the service name',
  },
  {
    key: 'otel.resourceAttributes',
    name: 'OTEL_RESOURCE_ATTRIBUTES',
    default: 'none',
    readBy: ['OpenTelemetry SDK'],
    meaning: 'add resource attributes (`deployment.environment=prod,…`); a `service.name` there also overrides the service name',
  },
  {
    key: 'otel.sampler',
    name: 'OTEL_TRACES_SAMPLER',
    default: '`parentbased_always_on`',
    readBy: ['OpenTelemetry SDK'],
    meaning: 'standard samplers, e.g. `parentbased_traceidratio` (with `OTEL_TRACES_SAMPLER_ARG`)',
  },
  { key: 'otel.samplerArg', name: 'OTEL_TRACES_SAMPLER_ARG', default: 'unset', readBy: ['OpenTelemetry SDK'], meaning: "the sampler's argument, e.g. `0.1`" },
  {
    key: 'otel.metricsExporter',
    name: 'OTEL_METRICS_EXPORTER',
    default: 'unset (no OTel metrics)',
    readBy: ['OpenTelemetry SDK'],
    meaning: "sets up OpenTelemetry metrics too (GuardAgent's own metrics are on `/metrics`)",
  },
  { key: 'otel.logsExporter', name: 'OTEL_LOGS_EXPORTER', default: 'unset (no OTel logs)', readBy: ['OpenTelemetry SDK'], meaning: 'sets up OpenTelemetry logs too' },
  { key: 'otel.disabled', name: 'OTEL_SDK_DISABLED', default: '`false`', readBy: ['OpenTelemetry SDK'], meaning: '`true` turns telemetry off even with an endpoint' },
] as const satisfies readonly EnvVariable[];

/** The key of a listed variable: a config path, or the name readEnv knows a variable outside GuardConfig by. */
export type EnvKey = (typeof ENV_VARIABLES)[number]['key'];

const BY_KEY: ReadonlyMap<string, EnvVariable> = new Map(ENV_VARIABLES.map((variable) => [variable.key, variable]));

/** The environment variable listed under `key`, e.g. `envName('gatewayUrl')` is `GUARDAGENT_URL`. */
export function envName(key: EnvKey): string {
  const variable = BY_KEY.get(key);
  if (!variable) throw new Error(`no environment variable is listed under ${key}`);
  return variable.name;
}

/** The value of the variable listed under `key`; an empty value reads as unset. */
export function readEnv(key: EnvKey, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env[envName(key)];
  return value === '' ? undefined : value;
}
