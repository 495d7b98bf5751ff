import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type LocalRedis } from '@guardagent/local-redis';
import { parseMemoryInfo } from '@guardagent/queue';
import { refundPolicy, startFixture, type GatewayFixture } from './gateway-fixture';

// Its own redis-server: the test takes Redis past maxmemory, which would starve every other suite.
let server: LocalRedis;
let redis: Redis;
let f: GatewayFixture;

beforeAll(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url);
  f = await startFixture({ redisUrl: server.url });
  expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: refundPolicy() })).status).toBe(200);
  expect((await (await f.call('/v1/policies/refunds/compile', { method: 'POST' })).json()).status).toBe('promoted');
});
afterAll(async () => {
  await redis?.config('SET', 'maxmemory', '0').catch(() => undefined);
  await f?.close();
  redis?.disconnect();
  await server?.stop();
});

async function checksQueued(): Promise<number> {
  return (await redis.zcard(`${f.config.prefix}:executor:completed`)) + (await redis.llen(`${f.config.prefix}:executor:wait`));
}

describe('a gateway in front of a Redis at maxmemory', () => {
  it('answers 503 STORE_FULL with Retry-After on every submit path, queues nothing, and takes checks again once there is room', async () => {
    const ok = await f.call('/v1/checks', { body: { policy: 'refunds', input: 'refund', context: { amount: 20 } } });
    expect(ok.status).toBe(200);
    const before = await checksQueued();

    const used = parseMemoryInfo(await redis.info('memory')).usedBytes;
    await redis.config('SET', 'maxmemory', String(Math.floor(used / 2)));
    const attempts = [
      await f.call('/v1/checks', { body: { policy: 'refunds', input: 'refund', context: { amount: 500 } } }),
      await f.call('/v1/checks?wait=0', { body: { policy: 'refunds', input: 'refund', context: { amount: 500 } } }),
      await f.call('/v1/checks', { body: { policy: 'refunds', input: 'refund', context: { amount: 500 }, idempotencyKey: 'order-1' } }),
    ];
    for (const response of attempts) {
      expect(response.status).toBe(503);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await response.json()).error.code).toBe('STORE_FULL');
    }
    await redis.config('SET', 'maxmemory', '0');
    expect(await checksQueued()).toBe(before);

    // Room again: the gateway's reading is at most a second old, so a retry soon gets through.
    let again = await f.call('/v1/checks', { body: { policy: 'refunds', input: 'refund', context: { amount: 500 } } });
    for (let tries = 0; again.status === 503 && tries < 40; tries += 1) {
      expect((await again.json()).error.code).toBe('STORE_FULL');
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await f.call('/v1/checks', { body: { policy: 'refunds', input: 'refund', context: { amount: 500 } } });
    }
    expect(again.status).toBe(200);
    expect((await again.json()).decision).toBe('deny');
  });
});
