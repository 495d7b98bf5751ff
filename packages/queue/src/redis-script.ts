import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { UnavailableError } from '@guardagent/errors';

/**
 * A Lua script run with EVALSHA, falling back to EVAL once when the server does not have it
 * cached yet. The one way GuardAgent runs Lua (decisions, rate limits, approvals, quotas).
 */
export class RedisScript {
  private readonly sha: string;

  constructor(
    private readonly name: string,
    private readonly source: string,
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: Redis, keys: string[], args: Array<string | number>): Promise<unknown> {
    try {
      try {
        return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
      } catch (error) {
        if (!String((error as Error)?.message).includes('NOSCRIPT')) throw error;
        return await redis.eval(this.source, keys.length, ...keys, ...args);
      }
    } catch (error) {
      // The Redis error stays the cause, so a passing one (a failover) is still told apart (redisTransientKind).
      throw new UnavailableError(`Redis script ${this.name} failed: ${(error as Error)?.message ?? String(error)}`, { script: this.name }, { cause: error });
    }
  }
}
