import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { keys } from '@guardagent/queue';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { QueueTransport } from '../src/queue';

// No workers run here: the test plays the executor by writing into Redis directly.

const policy = { id: 'p', requests: 'Deny refunds over 100.', mode: 'compiled' as const, program: 'return { deny: false, reasons: [] };' };
let redis: Redis;
let prefix: string;
let client: QueueTransport;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);

beforeAll(async () => {
  redis = new Redis(testRedisUrl());
  process.on('unhandledRejection', onUnhandled);
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  redis.disconnect();
});
afterEach(async () => {
  await client?.close();
});

async function waitingJobId(queue: string): Promise<string> {
  for (;;) {
    const ids = await redis.lrange(`${prefix}:${queue}:wait`, 0, -1);
    if (ids.length > 0) return ids[0];
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('QueueTransport at the edges', () => {
  const storedDecision = (id: string) => ({
    id,
    policy: { id: 'p', version: '1', digest: 'd', programDigest: 'pd' },
    decision: 'allow',
    status: 'ok',
    layer: 'guardagent',
    mode: 'compiled',
    reasons: [],
    rules: [],
    details: {},
    plan: null,
    code: null,
    attempts: 1,
    timings: { total: 1 },
    usage: { calls: 0, promptTokens: 0, completionTokens: 0 },
    traceId: '0'.repeat(32),
    createdAt: new Date().toISOString(),
  });

  it('check() reads the store once its subscriber is back from a reconnect (the announcement was lost meanwhile)', async () => {
    prefix = uniquePrefix('edges');
    client = await QueueTransport.connect({ redisUrl: testRedisUrl(), prefix });
    await client.putPolicy(policy);
    // A deadline far beyond this test's own timeout: only the read after the reconnect can settle it.
    const pending = client.check({ policy: 'p', input: 'refund 5' }, { timeoutMs: 120_000 });
    const id = await waitingJobId('executor');
    // Written without the publish an executor would send, as if sent while the subscriber was away.
    await redis.set(keys(prefix).decision('default', id), JSON.stringify(storedDecision(id)));
    // Drop the subscriber's connection; ioredis reconnects and re-subscribes on its own.
    const subscriber = (client as unknown as { subscriber: Redis }).subscriber;
    subscriber.disconnect(true);
    expect(await pending).toMatchObject({ id, decision: 'allow' });
  }, 20_000);

  it('check() reads the store once more at its deadline before giving up (no idempotency key)', async () => {
    prefix = uniquePrefix('edges');
    client = await QueueTransport.connect({ redisUrl: testRedisUrl(), prefix });
    await client.putPolicy(policy);
    const pending = client.check({ policy: 'p', input: 'refund 5' }, { timeoutMs: 1_500 });
    const id = await waitingJobId('executor');
    await redis.set(keys(prefix).decision('default', id), JSON.stringify(storedDecision(id)));
    expect(await pending).toMatchObject({ id, decision: 'allow' });
  });

  it('compile() rejects (and nothing is left unhandled) when the announced result is malformed', async () => {
    prefix = uniquePrefix('edges');
    client = await QueueTransport.connect({ redisUrl: testRedisUrl(), prefix });
    const compiling = client.compile(policy, { timeoutMs: 8_000 });
    const outcome = compiling.then(
      () => 'resolved',
      (error: Error) => error.name,
    );
    const id = await waitingJobId('executor');
    const channel = (await redis.pubsub('CHANNELS', `${prefix}:replies:*`)) as string[];
    await redis.set(keys(prefix).compileResult('default', id), JSON.stringify({ status: 'promoted' }));
    for (const c of channel) await redis.publish(c, JSON.stringify({ kind: 'compile', tenant: 'default', id }));
    expect(await outcome).toBe('ZodError');
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });

  it('feedback() connections are closed with the transport (was: one leaked per evicted tenant transport)', async () => {
    prefix = uniquePrefix('edges');
    const eventConnections = async () => ((await redis.client('LIST')) as string).split('\n').filter((line) => line.includes('name=guardagent:client-events')).length;
    const before = await eventConnections();
    client = await QueueTransport.connect({ redisUrl: testRedisUrl(), prefix });
    await client.putPolicy(policy);
    const { id } = await client.submit({ policy: 'p', input: 'x' });
    await redis.set(
      keys(prefix).decision('default', id),
      JSON.stringify({ id, policy: { id: 'p', version: '1', digest: 'd', programDigest: 'pd' }, decision: 'allow', status: 'ok', layer: 'guardagent', mode: 'per-request', reasons: [], rules: [], details: {}, plan: null, code: null, attempts: 1, timings: {}, usage: { calls: 0, promptTokens: 0, completionTokens: 0 }, traceId: '0'.repeat(32), createdAt: new Date().toISOString() }),
    );
    // No memory worker answers; the call has opened its QueueEvents connection once the job is queued.
    const feedback = client.feedback(id, { correctLabel: 1 }).catch((error: Error) => error);
    await waitingJobId('memory');
    expect(await eventConnections()).toBe(before + 1);
    await client.close();
    expect(await feedback).toMatchObject({ code: 'UNAVAILABLE' });
    for (let i = 0; i < 100 && (await eventConnections()) > before; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await eventConnections()).toBe(before);
  });

  it('checks in flight when the cached policy expires share one read of it; a put meanwhile is not overwritten by that read', async () => {
    prefix = uniquePrefix('edges');
    // policyCacheMs 0: every check finds the cache expired, as a burst does once a second.
    client = await QueueTransport.connect({ redisUrl: testRedisUrl(), prefix, policyCacheMs: 0 });
    await client.putPolicy(policy);
    const monitor = await new Redis(testRedisUrl()).monitor();
    const policyReads: string[] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (String(args[0]).toLowerCase() === 'get' && String(args[1]) === keys(prefix).policyCurrent('default', 'p')) policyReads.push(String(args[1]));
    });
    try {
      await redis.ping(); // the monitor is live once a later command is seen through it
      const submitted = await Promise.all(Array.from({ length: 50 }, (_, i) => client.submit({ policy: 'p', input: `x${i}` })));
      expect(submitted).toHaveLength(50);
      await client.submit({ policy: 'p', input: 'after' });
      // Wait until the monitor has seen the last submit's read, then count: one for the 50, one after.
      for (let i = 0; i < 200 && policyReads.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(policyReads.length).toBe(2);
    } finally {
      monitor.disconnect();
    }
    // A put while a read is in flight: the checks after the put carry the new version.
    const inFlight = client.submit({ policy: 'p', input: 'racing' });
    await client.putPolicy({ ...policy, version: '2', program: 'return { deny: true, reasons: ["v2"] };' });
    await inFlight;
    const { id } = await client.submit({ policy: 'p', input: 'later' });
    const job = JSON.parse((await redis.hget(`${prefix}:executor:${id}`, 'data')) ?? 'null') as { state?: { policy?: { version?: string } } } | null;
    expect(job?.state?.policy?.version).toBe('2');
  });
});

