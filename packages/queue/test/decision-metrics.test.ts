import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { testDecision, testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { METRIC_POLICIES_PER_TENANT, OTHER_POLICIES_LABEL, ResultStore, keys } from '../src/index';

const redis = new Redis(testRedisUrl());
afterAll(() => redis.disconnect());

const decision = (id: string, policy: string) => testDecision(id, { policy: { id: policy, version: '1', digest: 'd', programDigest: 'p' } });

describe('decision counts', () => {
  it(`label at most ${METRIC_POLICIES_PER_TENANT} policy ids per tenant; the rest count as ${OTHER_POLICIES_LABEL}`, async () => {
    const prefix = uniquePrefix('metrics');
    const store = new ResultStore(redis, prefix, 60);
    const policies = METRIC_POLICIES_PER_TENANT + 50;
    for (let i = 0; i < policies; i++) {
      expect(await store.saveDecision(decision(`a-${i}`, `inline-${i}`), { tenant: 'flood', replyTo: null, batchId: null })).toBe('stored');
    }
    // A second decision of a labelled policy keeps its label; another tenant has its own budget.
    await store.saveDecision(decision('again', 'inline-0'), { tenant: 'flood', replyTo: null, batchId: null });
    await store.saveDecision(decision('quiet-1', 'refunds'), { tenant: 'quiet', replyTo: null, batchId: null });
    const counts = await redis.hgetall(keys(prefix).metricsDecisions());
    const fields = Object.keys(counts);
    expect(fields.filter((f) => f.startsWith('flood|'))).toHaveLength(METRIC_POLICIES_PER_TENANT + 1);
    expect(counts[`flood|${OTHER_POLICIES_LABEL}|deny|ok`]).toBe('50');
    expect(counts['flood|inline-0|deny|ok']).toBe('2');
    expect(counts['quiet|refunds|deny|ok']).toBe('1');
    const total = Object.values(counts).reduce((sum, v) => sum + Number(v), 0);
    expect(total).toBe(policies + 2);
  });

  it('a decision leaves the tenant\'s in-flight set, stored or not', async () => {
    const prefix = uniquePrefix('metrics');
    const store = new ResultStore(redis, prefix, 60);
    await redis.zadd(keys(prefix).jobsInFlight('t'), Date.now(), 'j-1');
    expect(await store.saveDecision(decision('j-1', 'p'), { tenant: 't', replyTo: null, batchId: null })).toBe('stored');
    expect(await redis.zcard(keys(prefix).jobsInFlight('t'))).toBe(0);
  });
});

describe('decision announcements', () => {
  it('announce the first stored decision once, with the decision; a re-run stores and announces nothing', async () => {
    const prefix = uniquePrefix('announce');
    const store = new ResultStore(redis, prefix, 60);
    const channel = `${prefix}:replies:client-1`;
    const subscriber = new Redis(testRedisUrl());
    const messages: string[] = [];
    try {
      await subscriber.subscribe(channel);
      const sentinelSeen = new Promise<void>((resolve) =>
        subscriber.on('message', (_channel, message) => (message === 'sentinel' ? resolve() : messages.push(message))),
      );
      const first = decision('job-1', 'p');
      expect(await store.saveDecision(first, { tenant: 't', replyTo: channel, batchId: null })).toBe('stored');
      expect(await store.saveDecision({ ...first, decision: 'allow' as never }, { tenant: 't', replyTo: channel, batchId: null })).toBe('duplicate');
      // Published after both saves by the same connection: once it arrives, so has everything before it.
      await redis.publish(channel, 'sentinel');
      await sentinelSeen;
      expect(messages).toHaveLength(1);
      expect(JSON.parse(messages[0])).toMatchObject({ kind: 'decision', tenant: 't', id: 'job-1', decision: { decision: 'deny' } });
      expect((await store.getDecision('t', 'job-1'))?.decision).toBe('deny');
    } finally {
      subscriber.disconnect();
    }
  });
});

describe('the job-lock fence', () => {
  it('stores only while the job lock holds the saving worker\'s token; otherwise writes and counts nothing', async () => {
    const prefix = uniquePrefix('fence');
    const store = new ResultStore(redis, prefix, 60);
    const lockKey = keys(prefix).jobLock('executor', 'job-1');
    await redis.set(lockKey, 'token-of-the-new-owner', 'PX', 10_000);
    await redis.zadd(keys(prefix).jobsInFlight('t'), Date.now(), 'job-1');

    const stale = await store.saveDecision(decision('job-1', 'p'), { tenant: 't', replyTo: null, batchId: null, fence: { lockKey, token: 'token-of-a-thawed-worker' } });
    expect(stale).toBe('lock-lost');
    expect(await store.getDecision('t', 'job-1')).toBeNull();
    expect(await redis.hgetall(keys(prefix).metricsDecisions())).toEqual({});
    // Still in flight: the owner's answer takes it out.
    expect(await redis.zscore(keys(prefix).jobsInFlight('t'), 'job-1')).not.toBeNull();

    await redis.del(lockKey);
    expect(await store.saveDecision(decision('job-1', 'p'), { tenant: 't', replyTo: null, batchId: null, fence: { lockKey, token: 'token-of-a-thawed-worker' } })).toBe('lock-lost');

    await redis.set(lockKey, 'token-of-the-new-owner', 'PX', 10_000);
    expect(await store.saveDecision(decision('job-1', 'p'), { tenant: 't', replyTo: null, batchId: null, fence: { lockKey, token: 'token-of-the-new-owner' } })).toBe('stored');
    expect(await redis.zscore(keys(prefix).jobsInFlight('t'), 'job-1')).toBeNull();
  });
});
