import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { GuardConfig, ShardLayout } from '@guardagent/config';
import { ConfigError } from '@guardagent/errors';
import { DemonstrationStore } from '@guardagent/memory';
import { QueueSet, RedisOutageLog, ResultStore, settleShardLayout, createRedisConnection, waitUntilReady } from '@guardagent/queue';
import { PolicyRegistry, ProgramStore } from '@guardagent/registry';
import { BatchStore } from './batch-store';
import { buildGateway } from './build-gateway';
import { DEFAULT_LIMITS, type GatewayDeps, type GatewayLimits, type GatewayShard } from './gateway-deps';
import { GatewayMetrics } from './gateway-metrics';
import { ReplayRunner } from './replay-runner';
import { ReplayStore } from './replay-store';
import { CheckAdmission, QuotaStore } from '@guardagent/quotas';
import { ApiKeyStore } from '@guardagent/api-keys';
import { TenantStore } from './tenant-store';
import { TenantTransports } from './tenant-transports';
import { ApprovalWebhooks, TenantWebhooks, type ApprovalWebhooksOptions } from './approval-webhooks';
import { jsonLogger, type Logger } from '@guardagent/telemetry';

export interface StartGatewayOptions {
  config: GuardConfig;
  /** 0: any free port (read it back from `port`). Default config.gatewayPort. */
  port?: number;
  /** Default 127.0.0.1; containers pass 0.0.0.0. */
  host?: string;
  logger?: Logger;
  limits?: Partial<GatewayLimits>;
  /** Approval webhook delivery: `false` delivers none from this gateway; otherwise retry timings (tests shorten them). */
  approvalWebhooks?: false | Pick<ApprovalWebhooksOptions, 'pollMs' | 'attempts' | 'retryBaseMs' | 'retryMaxMs' | 'timeoutMs'>;
}

export interface Gateway {
  port: number;
  /** Base URL to reach it, e.g. http://127.0.0.1:8080. */
  url: string;
  app: FastifyInstance;
  /** Stop accepting requests, then close every connection it opened. */
  close(): Promise<void>;
}

/** Start the HTTP gateway in front of the queues of `config.redisUrl`. */
export async function startGateway(options: StartGatewayOptions): Promise<Gateway> {
  const { config } = options;
  const redisUrl = config.redisUrl;
  if (!redisUrl) throw new ConfigError('The gateway needs REDIS_URL (config.redisUrl)');
  const logger = options.logger ?? jsonLogger({ service: 'gateway', pid: process.pid });
  if (!config.adminKey) {
    logger.warn({}, 'GUARDAGENT_ADMIN_KEY is not set: no tenant can be created, only existing tenant keys work');
  }
  const redis = createRedisConnection(redisUrl, 'producer', 'gateway');
  // Errors surface on the commands that fail (503); the log says once that Redis is lost and once that it is back.
  const outage = new RedisOutageLog(logger);
  outage.watch(redis);
  await waitUntilReady(redis);
  let layout: ShardLayout;
  try {
    layout = await settleShardLayout(redis, config.prefix, config.shards);
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  const apiKeys = new ApiKeyStore(redis, config.prefix);
  // Each shard's stores under its prefix; a tenant's requests use its shard's (deps.shardOf).
  const shards = layout.prefixes.map(
    (prefix): GatewayShard => ({
      prefix,
      queues: new QueueSet(redis, prefix, outage.onError),
      results: new ResultStore(redis, prefix, config.resultTtlSeconds, config.decisionLog),
      policies: new PolicyRegistry(redis, prefix),
      programs: new ProgramStore(redis, prefix),
      memory: new DemonstrationStore({ redis, prefix, maxDemonstrations: config.maxDemonstrations }),
      batches: new BatchStore(redis, prefix, config.resultTtlSeconds),
      replayStore: new ReplayStore(redis, prefix),
      quotas: new QuotaStore(redis, prefix, config.quotas),
      admission: new CheckAdmission(redis, prefix, config.quotas, { storedForSeconds: config.resultTtlSeconds }),
    }),
  );
  const shardOf = (tenant: string) => shards[layout.shardOf(tenant)];
  const closeQueues = () => Promise.all(shards.map((shard) => shard.queues.close()));
  const transports = new TenantTransports({
    redisUrl,
    prefix: config.prefix,
    shards: config.shards,
    resultTtlSeconds: config.resultTtlSeconds,
    chunks: config.chunks,
    redisUp: () => redis.status === 'ready',
  });
  const webhooks = new TenantWebhooks(redis, config.prefix);
  const { url: webhookUrl, secret: webhookSecret } = config.approvalWebhook;
  const deliveries =
    options.approvalWebhooks === false
      ? null
      : new ApprovalWebhooks({
          redis,
          shardPrefixes: layout.prefixes,
          tenantWebhooks: webhooks,
          fallback: webhookUrl && webhookSecret ? { url: webhookUrl, secret: webhookSecret } : null,
          allowPrivateHosts: config.approvalWebhook.privateHosts === 'allow',
          logger,
          ...options.approvalWebhooks,
        });
  const deps: GatewayDeps = {
    config: { ...config, redisUrl },
    redis,
    shards,
    shardOf,
    apiKeys,
    tenants: new TenantStore(redis, config.prefix, apiKeys),
    replays: new ReplayRunner({ redis, shardOf, transports, logger }),
    transports,
    webhooks,
    metrics: new GatewayMetrics(redis, shards.map((shard) => shard.queues), config.prefix),
    logger,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
  };
  try {
    for (const id of await deps.tenants.withReservedIds()) {
      logger.warn(
        { code: 'RESERVED_TENANT_ID', tenant: id },
        `tenant '${id}' has an id the deployment's own keys use: its data can overwrite deployment records (or theirs its data); move its policies to a new tenant and delete it (docs/operations.md, "Reserved tenant ids")`,
      );
    }
  } catch (error) {
    logger.warn({ code: 'RESERVED_TENANT_ID' }, `could not look for tenants with reserved ids: ${(error as Error).message}`);
  }
  const app = await buildGateway(deps);
  const host = options.host ?? '127.0.0.1';
  try {
    await app.listen({ port: options.port ?? config.gatewayPort, host });
  } catch (error) {
    await app.close();
    await deps.replays.close();
    await deps.transports.close();
    await closeQueues();
    redis.disconnect();
    throw error;
  }
  const port = (app.server.address() as AddressInfo).port;
  deliveries?.start();
  let closing: Promise<void> | null = null;
  return {
    port,
    url: `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`,
    app,
    close: () =>
      (closing ??= (async () => {
        await deliveries?.stop();
        await app.close();
        await deps.replays.close();
        await deps.transports.close();
        await closeQueues();
        redis.disconnect();
      })()),
  };
}
