import { join } from 'node:path';
import { Queue } from 'bullmq';
import { ShardLayout, keyPrefixFor } from '@guardagent/config';
import { createRedisConnection } from '@guardagent/queue';
import { REPO_ROOT, spawnService, type SpawnedNode } from './children';
import { waitFor } from './wait-for';

const COUNTER_PRELOAD = join(REPO_ROOT, 'bench', 'lib', 'redis-command-counter.ts');

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

/**
 * Wait until the executors' sandbox pools are warm (every worker and spare ready, as each executor
 * reports it in `<prefix>:sandbox-pools`), so no section measures while workers still load the
 * toolbox data. Read raw (not through @guardagent/queue) so that the bench also runs against
 * sources from before the reports existed: with no report within 5 s it goes on.
 */
async function waitForWarmPools(connection: ReturnType<typeof createRedisConnection>, prefix: string, count: number): Promise<void> {
  const started = Date.now();
  await waitFor(
    async () => {
      const reports = Object.values(await connection.hgetall(`${prefix}:sandbox-pools`)).map((text) => JSON.parse(text) as { at: number; workers: number; ready: number; spares: number });
      const live = reports.filter((r) => Date.now() - r.at < 5000);
      if (live.length === 0) return Date.now() - started > 5000;
      return live.length >= count && live.every((r) => r.ready + r.spares === r.workers);
    },
    120_000,
    'warm sandbox pools',
    100,
  );
}

/** Wait until `count` BullMQ workers listen on the executor queue of this prefix (of each of its `shards`). */
export async function waitForExecutors(redisUrl: string, prefix: string, count: number, shards = 1): Promise<void> {
  const connection = createRedisConnection(redisUrl, 'worker', 'bench-wait');
  const queues = new ShardLayout(keyPrefixFor(prefix, redisUrl), shards).prefixes.map((shardPrefix) => new Queue('executor', { connection, prefix: shardPrefix }));
  try {
    for (const queue of queues) await waitFor(async () => (await queue.getWorkersCount()) >= count, 60_000, `${count} executor process(es)`, 100);
    await waitForWarmPools(connection, keyPrefixFor(prefix, redisUrl), count);
  } finally {
    await Promise.all(queues.map((queue) => queue.close()));
    connection.disconnect();
  }
}

