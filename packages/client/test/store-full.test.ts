import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { StoreFullError } from '@guardagent/errors';
import { startRedisServer, type LocalRedis } from '@guardagent/local-redis';
import { MemoryHeadroom, parseMemoryInfo, refuseWhenFull } from '@guardagent/queue';
import { uniquePrefix } from '@guardagent/testing';
import { QueueTransport } from '../src/queue';

// Its own redis-server: these tests change maxmemory, which would starve every other suite.
const policy = { id: 'p', requests: 'Deny refunds over 100.', mode: 'compiled' as const, program: 'return { deny: false, reasons: [] };' };
let server: LocalRedis;
let redis: Redis;

beforeAll(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

async function usedBytes(): Promise<number> {
  return parseMemoryInfo(await redis.info('memory')).usedBytes;
}

async function jobsQueued(prefix: string): Promise<number> {
  return (await redis.keys(`${prefix}:executor:*`)).filter((key) => !/:(id|meta|events|wait|active|marker|stalled-check|completed|failed|delayed|prioritized|paused|pc|limiter)$/.test(key)).length;
}

describe('a nearly full Redis', () => {
  it('refuses submits and checks up front with STORE_FULL while writes would still fit, and queues nothing', async () => {
    const prefix = uniquePrefix('full');
    const client = await QueueTransport.connect({ redisUrl: server.url, prefix });
    try {
      await client.putPolicy(policy);
      await client.submit({ policy: 'p', input: 'refund 20' });
      expect(await jobsQueued(prefix)).toBe(1);

      // Connected first (each connection's buffers count as used memory), its headroom not read yet.
      const fresh = await QueueTransport.connect({ redisUrl: server.url, prefix });
      try {
        // Used memory at about 94 % of maxmemory: past the refusal share (90 %), under the limit.
        await redis.config('SET', 'maxmemory', String(Math.ceil((await usedBytes()) / 0.94)));
        const submitted = await fresh.submit({ policy: 'p', input: 'refund 30' }).catch((error: unknown) => error);
        expect(submitted).toBeInstanceOf(StoreFullError);
        expect(submitted).toMatchObject({ code: 'STORE_FULL', details: { retryAfterSeconds: 1 } });
        expect((submitted as StoreFullError).details.maxBytes).toBeGreaterThan(0);
        await expect(fresh.check({ policy: 'p', input: 'refund 40' }, { timeoutMs: 2000 })).rejects.toMatchObject({ code: 'STORE_FULL' });
        await expect(fresh.submitMany([{ policy: 'p', input: 'a' }, { policy: 'p', input: 'b' }])).rejects.toMatchObject({ code: 'STORE_FULL' });
        // Redis itself still takes writes: the refusal came before the limit.
        expect(await redis.set(`${prefix}:probe`, 'x')).toBe('OK');
        expect(await jobsQueued(prefix)).toBe(1);
      } finally {
        await fresh.close();
      }

      await redis.config('SET', 'maxmemory', '0');
      const after = await QueueTransport.connect({ redisUrl: server.url, prefix });
      try {
        await after.submit({ policy: 'p', input: 'refund 50' });
        expect(await jobsQueued(prefix)).toBe(2);
      } finally {
        await after.close();
      }
    } finally {
      await redis.config('SET', 'maxmemory', '0');
      await client.close();
    }
  });

  it("turns Redis's own OOM refusal of a write into STORE_FULL, and leaves other errors alone", async () => {
    const headroom = new MemoryHeadroom(redis);
    await redis.config('SET', 'maxmemory', '1');
    try {
      const refused = await refuseWhenFull(headroom, () => redis.set('oom-probe', 'x')).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(StoreFullError);
      expect(refused).toMatchObject({ code: 'STORE_FULL' });
      await expect(headroom.assertRoom()).rejects.toMatchObject({ code: 'STORE_FULL' });
    } finally {
      await redis.config('SET', 'maxmemory', '0');
    }
    const other = await refuseWhenFull(headroom, () => redis.call('NOT-A-COMMAND')).catch((error: unknown) => error);
    expect(other).not.toBeInstanceOf(StoreFullError);
    expect((other as Error).name).toBe('ReplyError');
  });

  it('reads INFO memory once per refresh however many callers ask', async () => {
    let now = 0;
    const counting = new Redis(server.url);
    await counting.ping(); // past ioredis's own ready check, which sends INFO too
    let infos = 0;
    const info = counting.info.bind(counting);
    counting.info = ((...args: Parameters<typeof info>) => {
      infos += 1;
      return info(...args);
    }) as typeof counting.info;
    try {
      const headroom = new MemoryHeadroom(counting, { refreshMs: 1000, now: () => now });
      await Promise.all(Array.from({ length: 50 }, () => headroom.assertRoom()));
      expect(infos).toBe(1);
      now = 999;
      await headroom.assertRoom();
      expect(infos).toBe(1);
      now = 1000;
      await headroom.assertRoom();
      expect(infos).toBe(2);
    } finally {
      counting.disconnect();
    }
  });
});

describe('parseMemoryInfo', () => {
  it('reads used_memory and maxmemory, not the look-alike fields', () => {
    const info = '# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\nused_memory_rss:9000000\r\nmaxmemory:2097152\r\nmaxmemory_human:2.00M\r\n';
    expect(parseMemoryInfo(info)).toEqual({ usedBytes: 1_048_576, maxBytes: 2_097_152 });
    expect(parseMemoryInfo('garbage')).toEqual({ usedBytes: 0, maxBytes: 0 });
  });
});
