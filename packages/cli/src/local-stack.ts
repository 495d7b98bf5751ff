import { loadConfig, type GuardConfig } from '@guardagent/config';
import { startRedisServer, type LocalRedis } from '@guardagent/local-redis';
import type { Runtime } from '@guardagent/pipeline';
import { QueueTransport } from '@guardagent/client/queue';
import { reportRedisSettings, type Stage } from '@guardagent/queue';
import type { Llm } from '@guardagent/llm';
import { initTelemetry, jsonLogger, silentLogger, type TelemetryHandle } from '@guardagent/telemetry';

export interface LocalStack {
  config: GuardConfig;
  redisUrl: string;
  /** The private redis-server, when REDIS_URL was unset. */
  privateRedis: LocalRedis | null;
  runtime: Runtime | null;
  client: QueueTransport;
  stop(): Promise<void>;
}

export interface LocalStackOptions {
  /** Stages to run in this process (default all; [] = rely on workers elsewhere). */
  stages?: readonly Stage[];
  tenant?: string;
  verbose?: boolean;
  llm?: Llm | null;
  configOverrides?: Partial<GuardConfig>;
  serviceName?: string;
  /** A private redis-server even when REDIS_URL is set (a run that must never touch a deployment). */
  privateRedis?: boolean;
}

/**
 * Redis (REDIS_URL, or a private redis-server on a free port), workers and a client in one
 * process: what `guardagent up/check/eval/batch/demo` run on.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const baseConfig = loadConfig(process.env, options.configOverrides);
  let privateRedis: LocalRedis | null = null;
  let redisUrl = options.privateRedis ? undefined : baseConfig.redisUrl;
  if (!redisUrl) {
    privateRedis = await startRedisServer();
    redisUrl = privateRedis.url;
  }
  const config: GuardConfig = { ...baseConfig, redisUrl };
  // The operator's own Redis: say what in its settings weakens the guarantees (the private one
  // is throw-away by design).
  if (!privateRedis && options.verbose) {
    await reportRedisSettings(redisUrl, jsonLogger({ pid: process.pid }));
  }
  const telemetry: TelemetryHandle = initTelemetry({ serviceName: options.serviceName ?? 'guardagent' });
  const stages = options.stages ?? undefined;
  let runtime: Runtime | null = null;
  if (!stages || stages.length > 0) {
    // The worker runtime (the sandbox host, toolbox data, isolated-vm's loader) only when workers
    // run here: `guardagent mcp --remote` and other clients of a running stack start without it.
    const { createRuntime } = await import('@guardagent/pipeline');
    runtime = await createRuntime(config, {
      logger: options.verbose ? jsonLogger({ pid: process.pid }) : silentLogger,
      ...(options.llm !== undefined ? { llm: options.llm } : {}),
    });
    runtime.startWorkers(stages);
  }
  const client = await QueueTransport.connect({
    redisUrl,
    prefix: config.prefix,
    shards: config.shards,
    tenant: options.tenant ?? 'default',
    resultTtlSeconds: config.resultTtlSeconds,
    chunkMax: config.chunks.max,
    chunkLingerMs: config.chunks.lingerMs,
  });
  return {
    config,
    redisUrl,
    privateRedis,
    runtime,
    client,
    async stop() {
      await client.close();
      await runtime?.close();
      await telemetry.shutdown();
      await privateRedis?.stop();
    },
  };
}
