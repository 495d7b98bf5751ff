import type { Redis } from 'ioredis';
import { STAGES, type QueueSet } from '@guardagent/queue';

export interface Readiness {
  ready: boolean;
  redis: 'ok' | 'unreachable';
  workers: Record<string, number>;
  missing: string[];
}

/**
 * Ready when Redis answers and every stage of every shard has at least one live worker. BullMQ
 * names each worker's blocking connection after its queue, so `CLIENT LIST` (queue.getWorkers)
 * shows exactly the workers connected right now; a crashed worker's connection disappears with
 * it. `workers` counts a stage's workers over all shards' queues.
 */
export async function checkReadiness(redis: Redis, shards: readonly QueueSet[], timeoutMs = 2000): Promise<Readiness> {
  const workers: Record<string, number> = {};
  const missingSomewhere = new Set<string>();
  try {
    await withTimeout(redis.ping(), timeoutMs);
    const counts = await withTimeout(Promise.all(shards.map((queues) => Promise.all(STAGES.map((stage) => queues.queue(stage).getWorkersCount())))), timeoutMs);
    STAGES.forEach((stage, i) => {
      workers[stage] = counts.reduce((sum, shard) => sum + shard[i], 0);
      if (counts.some((shard) => shard[i] === 0)) missingSomewhere.add(stage);
    });
  } catch {
    return { ready: false, redis: 'unreachable', workers, missing: [...STAGES] };
  }
  const missing = STAGES.filter((stage) => missingSomewhere.has(stage));
  return { ready: missing.length === 0, redis: 'ok', workers, missing };
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
