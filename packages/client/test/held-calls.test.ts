import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { InMemoryHeldCalls, type HeldCalls } from '../src/index';
import { RedisHeldCalls } from '../src/queue';

const redis = new Redis(testRedisUrl());
afterAll(() => redis.disconnect());

const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
const held = (token: string, seconds = 60) => ({ token, id: `id-${token}`, expiresAt: new Date(clock.now + seconds * 1000).toISOString(), reasons: ['big refund'] });

describe.each([
  ['InMemoryHeldCalls', () => new InMemoryHeldCalls({ now: () => clock.now })],
  ['RedisHeldCalls', () => new RedisHeldCalls({ redis, prefix: uniquePrefix('held'), tenant: 'acme', now: () => clock.now })],
] as Array<[string, () => HeldCalls]>)('%s', (_name, make) => {
  it('keeps a token per subject and exact call (key order aside), forgets it only while it is still that token, and never returns an expired one', async () => {
    const calls = make();
    await calls.remember('u1', 'refund', { amount: 80, memo: 'x' }, held('apv_a'));
    expect(await calls.get('u1', 'refund', { memo: 'x', amount: 80 })).toMatchObject({ token: 'apv_a', reasons: ['big refund'] });
    expect(await calls.get('u2', 'refund', { amount: 80, memo: 'x' })).toBeNull();
    expect(await calls.get('u1', 'refund', { amount: 81, memo: 'x' })).toBeNull();
    expect(await calls.get('u1', 'other', { amount: 80, memo: 'x' })).toBeNull();
    // Held afresh elsewhere since: forgetting the old token leaves the new one.
    await calls.remember('u1', 'refund', { amount: 80, memo: 'x' }, held('apv_b'));
    await calls.forget('u1', 'refund', { amount: 80, memo: 'x' }, 'apv_a');
    expect((await calls.get('u1', 'refund', { amount: 80, memo: 'x' }))?.token).toBe('apv_b');
    await calls.forget('u1', 'refund', { amount: 80, memo: 'x' }, 'apv_b');
    expect(await calls.get('u1', 'refund', { amount: 80, memo: 'x' })).toBeNull();

    await calls.remember('u1', 'refund', { amount: 90 }, held('apv_c', 1));
    clock.now += 1000;
    expect(await calls.get('u1', 'refund', { amount: 90 })).toBeNull();
  });
});
