import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RateLimiter, RateLimitRequest, RateLimitResult } from './rate-limiter';
import { rateLimitKey } from './rate-limiter';
import { RedisScript } from '@guardagent/queue';

/**
 * Sliding-window log in a sorted set (score = call time in ms). Trim, count and add run in one
 * Lua script, so concurrent executors sharing the Redis server never both take the last slot.
 * Time comes from the Redis server (TIME) unless a clock is injected, so executors with
 * drifting clocks still agree on the window.
 */
const HIT = new RedisScript(
  'rate-limit-hit',
  `
local key = KEYS[1]
local max = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])
local now = tonumber(ARGV[4])
if now == nil or now < 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - windowMs)
if ARGV[5] ~= '' and redis.call('ZSCORE', key, ARGV[5]) then return {1, redis.call('ZCARD', key), 0} end
local count = redis.call('ZCARD', key)
if count >= max then
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  local retry = windowMs
  if oldest[2] then retry = tonumber(oldest[2]) + windowMs - now end
  return {0, count, retry}
end
local member = ARGV[5]
if member == '' then member = now .. '-' .. ARGV[3] end
redis.call('ZADD', key, now, member)
redis.call('PEXPIRE', key, windowMs + 1000)
return {1, count + 1, 0}
`,
);

export interface RedisRateLimiterOptions {
  redis: Redis;
  /** Key namespace, e.g. `guardagent` (keys: `<prefix>:rl:<tenant>:<policy>:<tool>:<subject>`). */
  prefix?: string;
  /** Clock in ms; default: the Redis server's TIME. */
  now?: () => number;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly now?: () => number;

  constructor(options: RedisRateLimiterOptions) {
    this.redis = options.redis;
    this.prefix = options.prefix ?? 'guardagent';
    this.now = options.now;
  }

  async hit(request: RateLimitRequest): Promise<RateLimitResult> {
    const key = rateLimitKey(this.prefix, request);
    const reply = (await HIT.run(
      this.redis,
      [key],
      [request.max, request.windowSeconds * 1000, randomBytes(8).toString('hex'), this.now ? this.now() : -1, request.callId ?? ''],
    )) as [number, number, number];
    return { allowed: reply[0] === 1, count: Number(reply[1]), retryAfterMs: Math.max(0, Number(reply[2])) };
  }
}
