import { Cluster, Redis } from 'ioredis';
import { parseRedisTarget } from '@guardagent/config';
import { RedisNotReadyError } from './redis-connection-error';

export type RedisPurpose = 'worker' | 'producer' | 'subscriber';

/**
 * ioredis connection for one purpose, to one Redis (`redis://…`) or a Redis Cluster
 * (`redis-cluster://host:port,…`, see parseRedisTarget). Workers block on Redis, so BullMQ
 * requires `maxRetriesPerRequest: null`; producers fail fast instead of queueing commands offline.
 */
export function createRedisConnection(url: string, purpose: RedisPurpose, name?: string): Redis {
  const options = {
    maxRetriesPerRequest: purpose === 'producer' ? 3 : null,
    enableOfflineQueue: purpose !== 'producer',
    connectionName: name ? `guardagent:${name}` : undefined,
  };
  const target = parseRedisTarget(url);
  if (target.kind === 'single') return new Redis(url, { ...options, lazyConnect: false });
  const { enableOfflineQueue, ...redisOptions } = options;
  const cluster = new Cluster(target.nodes, {
    enableOfflineQueue,
    redisOptions: { ...redisOptions, ...(target.username ? { username: target.username } : {}), ...(target.password ? { password: target.password } : {}) },
  });
  // Typed as Redis so that every store takes either. GuardAgent sends a Cluster only what it
  // serves as one Redis would: every key shares one hash tag (keyPrefixFor), so each script and
  // multi-key command lands on one slot; pub/sub reaches the whole cluster; BullMQ takes either.
  return cluster as unknown as Redis;
}

/**
 * Resolve once the connection is ready. Rejects after `timeoutMs`, or at the first connection
 * error with `failFast` (clients: tell the caller now; services keep waiting for Redis to come up).
 */
export async function waitUntilReady(redis: Redis, timeoutMs = 10_000, options: { failFast?: boolean } = {}): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => finish(new RedisNotReadyError(`Redis not ready after ${timeoutMs} ms`)), timeoutMs);
    const onReady = () => finish();
    const onError = (error: Error) => {
      if (options.failFast || redis.status === 'end') finish(error);
    };
    const onEnd = () => finish(new RedisNotReadyError('Redis connection closed'));
    function finish(error?: Error) {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('error', onError);
      redis.off('end', onEnd);
      if (error) reject(error);
      else resolve();
    }
    redis.on('ready', onReady);
    redis.on('error', onError);
    redis.on('end', onEnd);
  });
}
