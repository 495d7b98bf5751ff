import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { keys } from '@guardagent/queue';
import { PolicySchema } from '@guardagent/schemas';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { INLINE_SNAPSHOT_TTL_SECONDS, PolicyRegistry } from '../src/index';

const redis = new Redis(testRedisUrl());
afterAll(() => redis.disconnect());

const policy = (requests: string) => PolicySchema.parse({ id: 'inline', requests });

describe('policy snapshots in Redis', () => {
  it('an inline snapshot expires when unused, each use past a quarter of its TTL refreshes it, and put() keeps a version for good', async () => {
    const prefix = uniquePrefix('snap');
    let now = 1_000_000;
    const registry = new PolicyRegistry(redis, prefix, () => now);
    const inline = await registry.storeSnapshot('t', policy('Deny refunds.'));
    const key = keys(prefix).policySnapshot('t', inline.digest);
    const ttl = await redis.ttl(key);
    expect(ttl).toBeGreaterThan(INLINE_SNAPSHOT_TTL_SECONDS - 5);

    await redis.expire(key, 1000);
    now += 1000; // soon after: the process trusts its cache, no Redis round trip
    await registry.storeSnapshot('t', policy('Deny refunds.'));
    expect(await redis.ttl(key)).toBeLessThanOrEqual(1000);
    now += (INLINE_SNAPSHOT_TTL_SECONDS * 1000) / 4;
    await registry.storeSnapshot('t', policy('Deny refunds.'));
    expect(await redis.ttl(key)).toBeGreaterThan(INLINE_SNAPSHOT_TTL_SECONDS - 5);

    // Stored with put: no expiry, and a later inline use does not give it one.
    const stored = await registry.put('t', policy('Deny refunds.'));
    expect(stored.digest).toBe(inline.digest);
    expect(await redis.ttl(key)).toBe(-1);
    const other = new PolicyRegistry(redis, prefix, () => now);
    await other.storeSnapshot('t', policy('Deny refunds.'));
    expect(await redis.ttl(key)).toBe(-1);
    expect((await other.get('t', 'inline')).digest).toBe(inline.digest);
  });

  it('an expired inline snapshot is a clear NotFound, not a crash', async () => {
    const prefix = uniquePrefix('snap');
    const registry = new PolicyRegistry(redis, prefix);
    const inline = await registry.storeSnapshot('t', policy('Deny everything.'));
    await redis.del(keys(prefix).policySnapshot('t', inline.digest));
    const fresh = new PolicyRegistry(redis, prefix);
    await expect(fresh.getByDigest('t', inline.digest)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
