import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { freePort } from '@guardagent/local-redis';
import { testRedisUrl } from '@guardagent/testing';
import { isRedisConnectionError, isRedisOutOfMemory, waitUntilReady } from '../src/index';

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
