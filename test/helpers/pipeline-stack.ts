import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig, type GuardConfig } from '@guardagent/config';
import { QueueTransport, type QueueTransportOptions } from '@guardagent/client/queue';
import { LlmClient, type Llm } from '@guardagent/llm';
import { createRuntime, type Runtime } from '@guardagent/pipeline';
import { createRedisConnection, QueueSet, type Stage } from '@guardagent/queue';
import type { Redis } from 'ioredis';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { silentLogger } from '@guardagent/telemetry';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');

export interface TestStack {
  config: GuardConfig;
  prefix: string;
  redisUrl: string;
  runtime: Runtime | null;
  client: QueueTransport;
  /**
   * A Redis connection of the test's own, for reading what the pipeline stored (the client's
   * connections are its own business).
   */
  redis: Redis;
  /** The stage queues the client sends to (its tenant's prefix), on the test's own connection. */
  queues: QueueSet;
  stop(): Promise<void>;
}

/** A fake-LLM-backed client for tests: short timeout, given retries. */
export function testLlm(baseURL: string, options: { timeoutMs?: number; maxRetries?: number } = {}): Llm {
  return new LlmClient({
    config: { baseURL, apiKey: 'sk-test-secret-key', model: 'fake-model', timeoutMs: options.timeoutMs ?? 5000, maxRetries: options.maxRetries ?? 2 },
  });
}

/** Real Redis, real BullMQ workers (in this process) and a client, isolated by a unique prefix. */
export async function startTestStack(
  options: { llm?: Llm | null; stages?: readonly Stage[]; config?: Partial<GuardConfig>; tenant?: string; client?: Partial<QueueTransportOptions> } = {},
): Promise<TestStack> {
  const config = loadConfig({}, { redisUrl: testRedisUrl(), prefix: uniquePrefix('e2e'), ...options.config });
  // On a Redis Cluster (options.config.redisUrl) loadConfig makes the prefix a hash tag.
  const redisUrl = config.redisUrl!;
  const prefix = config.prefix;
  let runtime: Runtime | null = null;
  if (!options.stages || options.stages.length > 0) {
    runtime = await createRuntime(config, { llm: options.llm ?? null, logger: silentLogger });
    runtime.startWorkers(options.stages);
  }
  const client = await QueueTransport.connect({ redisUrl, prefix, shards: config.shards, tenant: options.tenant ?? 'default', ...options.client });
  const redis = createRedisConnection(redisUrl, 'worker', 'test');
  const queues = new QueueSet(redis, client.prefix);
  return {
    config,
    prefix,
    redisUrl,
    runtime,
    client,
    redis,
    queues,
    async stop() {
      await queues.close();
      redis.disconnect();
      await client.close();
      await runtime?.close();
    },
  };
}

/** A standalone stage service in its own process, as deployments run it. */
export function spawnService(stage: Stage, env: Record<string, string>): ChildProcess {
  // The built service, as deployments run it (the test setup builds before any test runs).
  const child = spawn(process.execPath, [join(REPO_ROOT, 'services', stage, 'dist', 'main.js')], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', () => undefined);
  return child;
}

export { waitFor } from '@guardagent/testing';
