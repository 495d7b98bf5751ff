import { errorMessage } from '@guardagent/errors';
import { checkRedisSettings } from './redis-settings-check';
import { createRedisConnection, waitUntilReady } from './redis-connection';

/** What reportRedisSettings logs through (a Logger of @guardagent/telemetry fits). */
interface WarningLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * Log a warning for each setting of the operator's Redis that weakens GuardAgent's guarantees
 * (eviction, no persistence). Run once at start by long-running processes on a shared Redis; a
 * private throw-away redis-server is left unchecked (it is meant to have no persistence).
 */
export async function reportRedisSettings(redisUrl: string, logger: WarningLogger): Promise<void> {
  const redis = createRedisConnection(redisUrl, 'producer', 'settings-check');
  redis.on('error', () => undefined); // a failure is reported once, below
  try {
    await waitUntilReady(redis, 5000, { failFast: true });
    for (const warning of await checkRedisSettings(redis)) logger.warn({ code: warning.code }, `redis: ${warning.message}`);
  } catch (error) {
    logger.warn({ err: errorMessage(error) }, 'could not check the Redis settings');
  } finally {
    redis.disconnect();
  }
}
