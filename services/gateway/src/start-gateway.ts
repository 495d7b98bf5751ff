import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { GuardConfig } from '@guardagent/config';
import { ConfigError } from '@guardagent/errors';
import { DemonstrationStore } from '@guardagent/memory';
import { jsonLogger, type Logger } from '@guardagent/pipeline';
import { QueueSet, RedisOutageLog, ResultStore, createRedisConnection, waitUntilReady } from '@guardagent/queue';
import { PolicyRegistry, ProgramStore } from '@guardagent/registry';
import { BatchStore } from './batch-store';
import { buildGateway } from './build-gateway';
import { DEFAULT_LIMITS, type GatewayDeps, type GatewayLimits } from './gateway-deps';
import { GatewayMetrics } from './gateway-metrics';
import { ReplayRunner } from './replay-runner';
import { ReplayStore } from './replay-store';
import { CheckAdmission, QuotaStore } from '@guardagent/quotas';
import { ApiKeyStore } from './api-key-store';
import { TenantStore } from './tenant-store';
import { TenantTransports } from './tenant-transports';

export interface StartGatewayOptions {
  config: GuardConfig;
  /** 0: any free port (read it back from `port`). Default config.gatewayPort. */
  port?: number;
  /** Default 127.0.0.1; containers pass 0.0.0.0. */
  host?: string;
  logger?: Logger;
  limits?: Partial<GatewayLimits>;
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
  const queues = new QueueSet(redis, config.prefix, outage.onError);
  const apiKeys = new ApiKeyStore(redis, config.prefix);
  const quotas = new QuotaStore(redis, config.prefix, config.quotas);
  const results = new ResultStore(redis, config.prefix, config.resultTtlSeconds, config.decisionLog);
  const programs = new ProgramStore(redis, config.prefix);
  const replayStore = new ReplayStore(redis, config.prefix);
  const transports = new TenantTransports({
    redisUrl,
    prefix: config.prefix,
    resultTtlSeconds: config.resultTtlSeconds,
    chunks: config.chunks,
    redisUp: () => redis.status === 'ready',
  });
  const deps: GatewayDeps = {
    config: { ...config, redisUrl },
    redis,
    queues,
    results,
    policies: new PolicyRegistry(redis, config.prefix),
    programs,
    memory: new DemonstrationStore({ redis, prefix: config.prefix, maxDemonstrations: config.maxDemonstrations }),
    apiKeys,
    tenants: new TenantStore(redis, config.prefix, apiKeys),
    batches: new BatchStore(redis, config.prefix, config.resultTtlSeconds),
    replayStore,
    replays: new ReplayRunner({ redis, prefix: config.prefix, store: replayStore, results, programs, transports, logger }),
    quotas,
    admission: new CheckAdmission(redis, config.prefix, config.quotas),
    transports,
    metrics: new GatewayMetrics(redis, queues, config.prefix),
    logger,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
  };
  const app = await buildGateway(deps);
  const host = options.host ?? '127.0.0.1';
  try {
    await app.listen({ port: options.port ?? config.gatewayPort, host });
  } catch (error) {
    await app.close();
    await deps.replays.close();
    await deps.transports.close();
    await queues.close();
    redis.disconnect();
    throw error;
  }
  const port = (app.server.address() as AddressInfo).port;
  let closing: Promise<void> | null = null;
  return {
    port,
    url: `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`,
    app,
    close: () =>
      (closing ??= (async () => {
        await app.close();
        await deps.replays.close();
        await deps.transports.close();
        await queues.close();
        redis.disconnect();
      })()),
  };
}
