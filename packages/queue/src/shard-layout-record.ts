import type { Redis } from 'ioredis';
import { MAX_SHARDS, ShardLayout } from '@guardagent/config';
import { ConfigError } from '@guardagent/errors';
import { keys } from './keys';

/**
 * The deployment's shard layout, as recorded in Redis by the first process that connected. A
 * tenant's shard follows from the count, so processes with different counts would look for a
 * tenant's data and queues in different places. So the first process records its count (`configured`,
 * or one shard when it names none, as a client that never heard of shards), and every later one
 * either names the same count or takes the recorded one: a process that names another count is
 * refused (ConfigError naming GUARDAGENT_SHARDS) before it touches a job, instead of stranding jobs
 * in queues no worker reads.
 */
export async function settleShardLayout(redis: Redis, prefix: string, configured?: number): Promise<ShardLayout> {
  const key = keys(prefix).shardLayout();
  if (configured !== undefined && !(Number.isInteger(configured) && configured >= 1 && configured <= MAX_SHARDS)) {
    throw new ConfigError(`GUARDAGENT_SHARDS must be an integer from 1 to ${MAX_SHARDS}, got ${configured}`, { configured });
  }
  // Read first and write only when nothing is recorded: a recorded deployment's processes then
  // connect with no write at all, also while Redis is at maxmemory (it refuses every SET then,
  // and a client's submits must be refused with STORE_FULL, not its connect).
  let raw = await redis.get(key);
  if (raw === null) {
    await redis.set(key, String(configured ?? 1), 'NX');
    raw = await redis.get(key);
  }
  // Only the digits this function writes count as a record (not '1e1', not ' 2').
  const recorded = raw !== null && /^[0-9]{1,2}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(recorded) || recorded < 1 || recorded > MAX_SHARDS) {
    throw new ConfigError(`${key} holds '${String(raw).slice(0, 40)}', not a shard count from 1 to ${MAX_SHARDS}`, { key });
  }
  if (configured !== undefined && recorded !== configured) {
    throw new ConfigError(
      `GUARDAGENT_SHARDS is ${configured} but this deployment's data is laid out in ${recorded} shard(s) (${key}): start every process with GUARDAGENT_SHARDS=${recorded} (or, if the deployment holds no data yet, delete ${key})`,
      { configured, recorded },
    );
  }
  return new ShardLayout(prefix, recorded);
}
