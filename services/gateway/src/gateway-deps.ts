import type { Redis } from 'ioredis';
import type { GuardConfig } from '@guardagent/config';
import type { DemonstrationStore } from '@guardagent/memory';
import type { QueueSet, ResultStore } from '@guardagent/queue';
import type { CheckAdmission, QuotaStore } from '@guardagent/quotas';
import type { PolicyRegistry, ProgramStore } from '@guardagent/registry';
import type { ApiKeyStore } from '@guardagent/api-keys';
import type { BatchStore } from './batch-store';
import type { ReplayRunner } from './replay-runner';
import type { ReplayStore } from './replay-store';
import type { GatewayMetrics } from './gateway-metrics';
import type { TenantStore } from './tenant-store';
import type { TenantTransports } from './tenant-transports';
import type { TenantWebhooks } from './approval-webhooks';
import type { Logger } from '@guardagent/telemetry';

export interface GatewayLimits {
  /** Largest JSON body (policies, checks), bytes. */
  jsonBodyBytes: number;
  /** Largest NDJSON batch body, bytes (read as a stream, never buffered whole). */
  batchBodyBytes: number;
  /** Largest JSON-array batch body, bytes (a JSON array is parsed whole, so it is kept smaller). */
  batchJsonBodyBytes: number;
  batchMaxJobs: number;
  /** Jobs per submitMany round trip. */
  batchChunk: number;
  /**
   * Longest a client may take to send a whole request (headers and body), ms. A slow upload,
   * authenticated or not, is cut off with 408 past it; the wait for a decision is not counted.
   */
  requestTimeoutMs: number;
  /**
   * How long a request body may take, ms, from when the gateway starts reading it (after the
   * headers and the key's check). A JSON body must arrive whole within it; a streamed batch body
   * gets it as a grace, then 1 s more per `minBodyBytesPerSecond` bytes received, counting only
   * time the gateway waits for bytes (not time it spends queueing them or waiting for quota).
   * Past it: 408 `REQUEST_TIMEOUT`, and the connection is closed.
   */
  bodyTimeoutMs: number;
  /** The slowest a streamed batch body may arrive after the grace (see bodyTimeoutMs), bytes per second. */
  minBodyBytesPerSecond: number;
  /** Longest a batch upload waits for the tenant's quotas to let its next chunk in, ms; then 429. */
  batchAdmissionWaitMs: number;
}

export const DEFAULT_LIMITS: GatewayLimits = {
  jsonBodyBytes: 16 * 1024 * 1024,
  batchBodyBytes: 512 * 1024 * 1024,
  batchJsonBodyBytes: 64 * 1024 * 1024,
  batchMaxJobs: 100_000,
  batchChunk: 1000,
  // A 512 MiB batch at 2 MB/s.
  requestTimeoutMs: 300_000,
  // The largest JSON body (16 MiB) at 560 KB/s; a trickled body is cut off after 30 s, not 300.
  bodyTimeoutMs: 30_000,
  minBodyBytesPerSecond: 64 * 1024,
  batchAdmissionWaitMs: 60_000,
};

/** The Redis-backed stores of one shard (see ShardLayout): every tenant's data is in its shard's. */
export interface GatewayShard {
  prefix: string;
  queues: QueueSet;
  results: ResultStore;
  policies: PolicyRegistry;
  programs: ProgramStore;
  memory: DemonstrationStore;
  batches: BatchStore;
  /** Replays of recorded traffic: their records. */
  replayStore: ReplayStore;
  /** Per-tenant quotas: overrides, and admission of checks against rate and in-flight limits. */
  quotas: QuotaStore;
  admission: CheckAdmission;
}

/** Everything the routes use: Redis-backed stores shared by all requests. */
export interface GatewayDeps {
  config: GuardConfig & { redisUrl: string };
  redis: Redis;
  /** Every shard's stores, in shard order (one unless GUARDAGENT_SHARDS > 1). */
  shards: readonly GatewayShard[];
  /** The stores of the shard a tenant's data lives in. */
  shardOf(tenant: string): GatewayShard;
  /** The tenant registry and API keys: the deployment's, in no shard. */
  apiKeys: ApiKeyStore;
  tenants: TenantStore;
  /** The runner of this process's running replays. */
  replays: ReplayRunner;
  transports: TenantTransports;
  /** Each tenant's own approval webhook. */
  webhooks: TenantWebhooks;
  metrics: GatewayMetrics;
  logger: Logger;
  limits: GatewayLimits;
}
