import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { keys, settleShardLayout } from '../src/index';

const redis = new Redis(testRedisUrl());
afterAll(() => redis.disconnect());

describe("the deployment's recorded shard count", () => {
  it('is recorded by the first process; later ones naming it, or naming none, get the same layout', async () => {
    const prefix = uniquePrefix('layout');
    const first = await settleShardLayout(redis, prefix, 4);
    expect(first.count).toBe(4);
    expect(await redis.get(keys(prefix).shardLayout())).toBe('4');
    expect((await settleShardLayout(redis, prefix, 4)).prefixes).toEqual(first.prefixes);
    expect((await settleShardLayout(redis, prefix)).prefixes).toEqual(first.prefixes);
  });

  it('reads a recorded layout without writing (a process may connect while Redis refuses writes)', async () => {
    const prefix = uniquePrefix('layout');
    await settleShardLayout(redis, prefix, 3);
    // A user that may only read: what every connection is while Redis is at maxmemory.
    const user = `reader-${prefix}`;
    await redis.acl('SETUSER', user, 'on', '>secret', '~*', '&*', '+@read', '+@connection');
    const reader = new Redis(testRedisUrl(), { username: user, password: 'secret' });
    try {
      await expect(reader.set('anything', '1')).rejects.toThrow(/NOPERM/);
      expect((await settleShardLayout(reader, prefix, 3)).count).toBe(3);
      expect((await settleShardLayout(reader, prefix)).count).toBe(3);
    } finally {
      reader.disconnect();
      await redis.acl('DELUSER', user);
    }
  });

  it('records one shard for a client that names none on a fresh deployment, so a service with another count then refuses', async () => {
    const prefix = uniquePrefix('layout');
    expect((await settleShardLayout(redis, prefix)).prefixes).toEqual([prefix]);
    await expect(settleShardLayout(redis, prefix, 3)).rejects.toMatchObject({ code: 'CONFIG_INVALID', details: { configured: 3, recorded: 1 } });
  });

  it('refuses another count, a count out of range and a record that is not a count, naming what is wrong; the record is untouched', async () => {
    const prefix = uniquePrefix('layout');
    await settleShardLayout(redis, prefix, 2);
    await expect(settleShardLayout(redis, prefix, 3)).rejects.toThrow(/GUARDAGENT_SHARDS is 3 but this deployment's data is laid out in 2 shard/);
    for (const bad of [0, 65, 2.5, Number.NaN]) await expect(settleShardLayout(redis, prefix, bad)).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    expect(await redis.get(keys(prefix).shardLayout())).toBe('2');
    for (const corrupt of ['x'.repeat(10_000), '0', '-3', '99', '1e1', '']) {
      const other = uniquePrefix('layout');
      await redis.set(keys(other).shardLayout(), corrupt);
      await expect(settleShardLayout(redis, other)).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    }
  });
});
