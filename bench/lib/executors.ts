import { join } from 'node:path';
import type { QueueTransport } from '@guardagent/client';
import { Queue } from 'bullmq';
import { keyPrefixFor } from '@guardagent/config';
import { createRedisConnection } from '@guardagent/queue';
import { REPO_ROOT, spawnService, type SpawnedNode } from './children';
import { waitFor } from './wait-for';

export const COUNTER_PRELOAD = join(REPO_ROOT, 'bench', 'lib', 'redis-command-counter.ts');

export interface ExecutorProcess extends SpawnedNode {
  countFile: string;
}

/** Env that keeps a spawned stage free of any LLM the caller's shell may configure. */
const NO_LLM = { GUARDAGENT_LLM_BASE_URL: '', GUARDAGENT_LLM_API_KEY: '', OPENAI_API_KEY: '', GUARDAGENT_LLM_MODEL: '' };

/** Start one executor service process (optionally under --cpu-prof) with the Redis command counter preloaded. */
export function startExecutor(options: {
  redisUrl: string;
  prefix: string;
  index: number;
  workDir: string;
  profileDir: string | null;
  /** More environment for the executor (e.g. GUARDAGENT_DECISION_LOG). */
  env?: Record<string, string>;
}): ExecutorProcess {
  const countFile = join(options.workDir, `executor-${options.index}-redis-counts.json`);
  const node = spawnService(
    'executor',
    { REDIS_URL: options.redisUrl, GUARDAGENT_PREFIX: options.prefix, BENCH_REDIS_COUNT_FILE: countFile, ...NO_LLM, ...options.env },
    {
      preload: [COUNTER_PRELOAD],
      // One directory per process: Node writes one profile per thread (main + the ESM loader-hooks thread of tsx).
      execArgv: options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(options.profileDir, `executor-${options.index}`)}`] : [],
    },
  );
  return { ...node, countFile };
}

/** Wait until `count` BullMQ workers listen on the executor queue of this prefix. */
export async function waitForExecutors(redisUrl: string, prefix: string, count: number): Promise<void> {
  const connection = createRedisConnection(redisUrl, 'worker', 'bench-wait');
  const queue = new Queue('executor', { connection, prefix: keyPrefixFor(prefix, redisUrl) });
  try {
    await waitFor(async () => (await queue.getWorkersCount()) >= count, 60_000, `${count} executor process(es)`, 100);
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

export type { QueueTransport };
