import { STAGES } from './stages';

/**
 * The first segment after the prefix of every key and channel that is not a tenant's: the
 * deployment's records (tenants, API keys, the shard layout), counters, worker heartbeats, reply
 * channels, the rails' shared state (approvals, rate-limit windows); BullMQ's queues add one each
 * (STAGES). A tenant's keys are `<prefix>:<tenant>:…`, so no tenant id may be one of these (see
 * RESERVED_TENANT_IDS): a tenant named `tenants` would write its policy `keys` over the key records
 * of a tenant named `policy` (`<prefix>:tenants:policy:keys`).
 */
export const DEPLOYMENT_SEGMENTS = {
  tenants: 'tenants',
  tenantKeys: 'tenant-keys',
  metrics: 'metrics',
  workers: 'workers',
  layout: 'layout',
  replies: 'replies',
  approval: 'approval',
  rateLimits: 'rl',
  sandboxPools: 'sandbox-pools',
} as const;

/** Tenant ids that would share key space with the deployment's own keys (see DEPLOYMENT_SEGMENTS). */
export const RESERVED_TENANT_IDS: readonly string[] = Object.freeze([...Object.values(DEPLOYMENT_SEGMENTS), ...STAGES]);

/** Whether `id` is a segment of the deployment's own keys, so no tenant may have it. */
export function isReservedTenantId(id: string): boolean {
  return RESERVED_TENANT_IDS.includes(id);
}

const D = DEPLOYMENT_SEGMENTS;

/**
 * Every Redis key GuardAgent writes (besides BullMQ's own), in one place. Tenant data always
 * sits under the tenant's segment so one tenant can never address another's; the deployment's
 * own keys sit under DEPLOYMENT_SEGMENTS, which no tenant id may be.
 */
export function keys(prefix: string) {
  return {
    decision: (tenant: string, id: string) => `${prefix}:${tenant}:decision:${id}`,
    /** A job's payload, stored once when it first hops between stages. */
    jobPayload: (tenant: string, id: string) => `${prefix}:${tenant}:job-payload:${id}`,
    idempotencyBinding: (tenant: string, id: string) => `${prefix}:${tenant}:idempotency:${id}`,
    /** The tenant's decision log: a stream of the decisions recorded, with their jobs (see DecisionLog). */
    decisionLog: (tenant: string) => `${prefix}:${tenant}:decision-log`,
    /** The chunk job carrying a check (only when its producer records it: locateChecks). */
    checkChunk: (tenant: string, id: string) => `${prefix}:${tenant}:check-chunk:${id}`,
    compileResult: (tenant: string, id: string) => `${prefix}:${tenant}:compile:${id}`,
    replyChannel: (clientId: string) => `${prefix}:${D.replies}:${clientId}`,
    policyCurrent: (tenant: string, id: string) => `${prefix}:${tenant}:policy:${id}`,
    policyIndex: (tenant: string) => `${prefix}:${tenant}:policies`,
    /** The digest of a policy id's shadow version (enforcement: shadow), if it has one. */
    policyShadow: (tenant: string, id: string) => `${prefix}:${tenant}:policy-shadow:${id}`,
    /** Shadow decisions counted by `tenant|policy|agree|disagree|undecided`. */
    metricsShadow: () => `${prefix}:${D.metrics}:shadow`,
    /** The versions put under a policy id, newest first (a list of JSON entries, capped; see PolicyRegistry.versions). */
    policyVersions: (tenant: string, id: string) => `${prefix}:${tenant}:policy-versions:${id}`,
    policySnapshot: (tenant: string, digest: string) => `${prefix}:${tenant}:policy-snapshot:${digest}`,
    program: (tenant: string, programDigest: string) => `${prefix}:${tenant}:program:${programDigest}`,
    programReport: (tenant: string, programDigest: string) => `${prefix}:${tenant}:program-report:${programDigest}`,
    compileLock: (tenant: string, programDigest: string) => `${prefix}:${tenant}:compiling:${programDigest}`,
    llmCache: (tenant: string, hash: string) => `${prefix}:${tenant}:llm-cache:${hash}`,
    batch: (tenant: string, id: string) => `${prefix}:${tenant}:batch:${id}`,
    batchResults: (tenant: string, id: string) => `${prefix}:${tenant}:batch:${id}:results`,
    /** A replay of recorded traffic (POST /v1/policies/{id}/replays): its record, as JSON. */
    replay: (tenant: string, id: string) => `${prefix}:${tenant}:replay:${id}`,
    /** A policy's replays by start time (a sorted set of replay ids). */
    policyReplays: (tenant: string, policyId: string) => `${prefix}:${tenant}:policy-replays:${policyId}`,
    tenant: (id: string) => `${prefix}:${D.tenants}:${id}`,
    /** Every tenant's id by creation time (a sorted set; `~` sorts after no tenant id, which start with a letter or digit). */
    tenantIndex: () => `${prefix}:${D.tenants}:~index`,
    /** Set once the tenants made before the index existed have been added to it. */
    tenantIndexBuilt: () => `${prefix}:${D.tenants}:~indexed`,
    /** Quota overrides of one tenant (a hash; absent fields take the configured defaults). */
    tenantQuotas: (id: string) => `${prefix}:${D.tenants}:${id}:quotas`,
    /** The tenant's check token bucket (tokens, last refill). */
    quotaBucket: (tenant: string) => `${prefix}:${tenant}:quota:bucket`,
    /** The tenant's checks in flight: job id → submit time (a sorted set; a decision removes its id). */
    jobsInFlight: (tenant: string) => `${prefix}:${tenant}:quota:in-flight`,
    /** Bytes the tenant's checks hold, by when they expire: bucket end (ms) → bytes (a hash; see CheckAdmission). */
    storedBytes: (tenant: string) => `${prefix}:${tenant}:quota:stored`,
    tenantByKeyHash: (hash: string) => `${prefix}:${D.tenantKeys}:${hash}`,
    tenantKeyRecords: (tenant: string) => `${prefix}:${D.tenants}:${tenant}:keys`,
    metricsDecisions: () => `${prefix}:${D.metrics}:decisions`,
    /** Stage jobs taken over from a dead or frozen worker (`stalled|<stage>`), and of those, finished (`recovered|<stage>`) or failed and answered fail-closed (`failed_after_takeover|<stage>`). */
    metricsTakeovers: () => `${prefix}:${D.metrics}:takeovers`,
    /** The policy ids a tenant's decision counts are labelled with (bounded; the rest count as `_other`). */
    metricsPolicies: (tenant: string) => `${prefix}:${tenant}:metrics:policies`,
    workerHeartbeat: (stage: string) => `${prefix}:${D.workers}:${stage}`,
    /** Sandbox pool counts of every executor (restarts, quarantines, waits by tenant); under the deployment's prefix. */
    metricsSandbox: () => `${prefix}:${D.metrics}:sandbox`,
    /** Each executor's sandbox pool as it last reported it (field: the executor, value: JSON); under the deployment's prefix. */
    sandboxPools: () => `${prefix}:${D.sandboxPools}`,
    /** The deployment's shard count (see checkShardLayout); under the deployment's prefix, never a shard's. */
    shardLayout: () => `${prefix}:${D.layout}`,
    /** BullMQ's lock of a stage job (BullMQ's own key layout: `<prefix>:<queue>:<id>:lock`). */
    jobLock: (queue: string, id: string) => `${prefix}:${queue}:${id}:lock`,
  };
}
export type Keys = ReturnType<typeof keys>;
