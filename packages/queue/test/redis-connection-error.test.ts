import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { UnavailableError } from '@guardagent/errors';
import { freePort, startRedisServer } from '@guardagent/local-redis';
import { testRedisUrl } from '@guardagent/testing';
import { RedisScript, isRedisConnectionError, isRedisOutOfMemory, isRedisTransientError, redisTransientKind, waitUntilReady } from '../src/index';

const redis = new Redis(testRedisUrl());
afterAll(() => redis.disconnect());

describe('isRedisConnectionError', () => {
  it('is false for errors Redis answered with: a wrong command, a wrong type', async () => {
    const unknown = await redis.call('NO-SUCH-COMMAND').catch((e: unknown) => e);
    expect(unknown).toMatchObject({ name: 'ReplyError' });
    expect(isRedisConnectionError(unknown)).toBe(false);
    await redis.set('conn-error:string', 'x');
    const wrongType = await redis.lpush('conn-error:string', 'y').catch((e: unknown) => e);
    expect(isRedisConnectionError(wrongType)).toBe(false);
    expect(isRedisOutOfMemory(wrongType)).toBe(false);
    expect(isRedisConnectionError(new Error('boom'))).toBe(false);
    expect(isRedisConnectionError('Connection is closed.')).toBe(false);
  });

  it('is true for a command on a closed connection and a connection that never came up', async () => {
    const closed = new Redis(testRedisUrl());
    await waitUntilReady(closed);
    closed.disconnect();
    const onClosed = await closed.get('x').catch((e: unknown) => e);
    expect(isRedisConnectionError(onClosed)).toBe(true);

    const port = await freePort();
    const nowhere = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    const events: unknown[] = [];
    nowhere.on('error', (error) => events.push(error));
    const failedConnect = await nowhere.connect().catch((e: unknown) => e);
    expect(isRedisConnectionError(failedConnect)).toBe(true);
    expect(events[0]).toMatchObject({ code: 'ECONNREFUSED' });
    expect(isRedisConnectionError(events[0])).toBe(true);
    const notReady = await waitUntilReady(new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true }), 50).catch((e: unknown) => e);
    expect(notReady).toMatchObject({ name: 'RedisNotReadyError' });
    expect(isRedisConnectionError(notReady)).toBe(true);
    nowhere.disconnect();
  });

  it('is true for a command given up after the reconnect attempts (maxRetriesPerRequest)', async () => {
    const port = await freePort();
    const offline = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 1, retryStrategy: () => 10 });
    offline.on('error', () => undefined);
    const gaveUp = await offline.get('x').catch((e: unknown) => e);
    offline.disconnect();
    expect(gaveUp).toMatchObject({ name: 'MaxRetriesPerRequestError' });
    expect(isRedisConnectionError(gaveUp)).toBe(true);
  });
});

// The Redis Cluster errors (MOVED, CLUSTERDOWN, TRYAGAIN, "Too many Cluster redirections",
// ClusterAllFailedError) are produced by a real cluster in test/cluster/failover.test.ts.
describe('redisTransientKind', () => {
  it('a lost connection is `connection`, also under the UnavailableError a script wraps it in', async () => {
    const closed = new Redis(testRedisUrl());
    await waitUntilReady(closed);
    closed.disconnect();
    const onClosed = await closed.get('x').catch((e: unknown) => e);
    expect(redisTransientKind(onClosed)).toBe('connection');
    const wrapped = await new RedisScript('probe', 'return 1').run(closed, [], []).catch((e: unknown) => e);
    expect(wrapped).toBeInstanceOf(UnavailableError);
    expect(redisTransientKind(wrapped)).toBe('connection');
  });

  it("a write to a replica (READONLY, as on a demoted primary during a failover) is `failover`", async () => {
    const replica = await startRedisServer();
    const client = new Redis(replica.url);
    try {
      const { port } = new URL(testRedisUrl());
      await client.call('REPLICAOF', '127.0.0.1', port);
      const refused = await client.set('transient:x', '1').catch((e: unknown) => e);
      expect(refused).toMatchObject({ name: 'ReplyError', message: expect.stringMatching(/^READONLY /) });
      expect(redisTransientKind(refused)).toBe('failover');
      // A MULTI with it queued is refused as a whole (EXECABORT), judged by what was refused in it.
      const multi = await client.multi().set('transient:y', '1').exec().catch((e: unknown) => e);
      expect(multi).toMatchObject({ name: 'ReplyError', message: expect.stringMatching(/^EXECABORT /) });
      expect(redisTransientKind(multi)).toBe('failover');
    } finally {
      client.disconnect();
      await replica.stop();
    }
  });

  it('errors Redis answered for good are not transient: a wrong type, an unknown command, a MULTI with a bad command', async () => {
    await redis.set('transient:string', 'x');
    const wrongType = await redis.lpush('transient:string', 'y').catch((e: unknown) => e);
    expect(redisTransientKind(wrongType)).toBeNull();
    const unknown = await redis.call('NO-SUCH-COMMAND').catch((e: unknown) => e);
    expect(redisTransientKind(unknown)).toBeNull();
    const multi = await redis.multi().call('NO-SUCH-COMMAND').exec().catch((e: unknown) => e);
    expect(multi).toMatchObject({ message: expect.stringMatching(/^EXECABORT /) });
    expect(redisTransientKind(multi)).toBeNull();
    const script = await new RedisScript('broken', "return redis.call('LPUSH', KEYS[1], 'y')").run(redis, ['transient:string'], []).catch((e: unknown) => e);
    expect(script).toBeInstanceOf(UnavailableError);
    expect(redisTransientKind(script)).toBeNull();
    // Only Redis's own replies count: an error of ours that merely says MOVED is not one.
    expect(redisTransientKind(new Error('MOVED 1 127.0.0.1:1'))).toBeNull();
    expect(isRedisTransientError('Too many Cluster redirections.')).toBe(false);
  });
});
