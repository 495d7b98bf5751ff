import { Redis } from 'ioredis';
import { RedisNotReadyError } from './redis-connection-error';

export type RedisPurpose = 'worker' | 'producer' | 'subscriber';

/**
 * ioredis connection for one purpose. Workers block on Redis, so BullMQ requires
 * `maxRetriesPerRequest: null`; producers fail fast instead of queueing commands offline.
 */
export function createRedisConnection(url: string, purpose: RedisPurpose, name?: string): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: purpose === 'producer' ? 3 : null,
    enableOfflineQueue: purpose !== 'producer',
    connectionName: name ? `guardagent:${name}` : undefined,
    lazyConnect: false,
  });
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
