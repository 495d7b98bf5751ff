import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@guardagent/config';
import { startRedisServer, type LocalRedis } from '@guardagent/local-redis';
import { uniquePrefix } from '@guardagent/testing';
import { startGateway, type Gateway } from '../src/index';
import { ADMIN_KEY } from './gateway-fixture';
import { silentLogger } from '@guardagent/telemetry';

// A private redis-server this file can stop, to see the gateway degrade instead of crashing.
let redis: LocalRedis;
let gateway: Gateway;

beforeAll(async () => {
  redis = await startRedisServer();
  const config = loadConfig({}, { redisUrl: redis.url, prefix: uniquePrefix('down'), adminKey: ADMIN_KEY });
  gateway = await startGateway({ config, port: 0, logger: silentLogger });
});
afterAll(async () => {
  await gateway?.close();
  await redis?.stop().catch(() => undefined);
});

const call = (path: string, body?: unknown) =>
  fetch(`${gateway.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe('when Redis goes away', () => {
  it('answers 503 UNAVAILABLE and not-ready, and stays alive', async () => {
    expect((await call('/v1/policies')).status).toBe(200);
    await redis.stop();

    const ready = await call('/readyz');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ ready: false, redis: 'unreachable' });

    const check = await call('/v1/checks', { policy: 'p', input: 'x' });
    expect(check.status).toBe(503);
    expect(check.headers.get('retry-after')).toBe('1');
    expect(((await check.json()) as { error: unknown }).error).toMatchObject({ code: 'UNAVAILABLE', message: 'Redis is unavailable; retry later', details: { retryAfterSeconds: 1 } });
    const tenantKey = await fetch(`${gateway.url}/v1/policies`, { headers: { authorization: 'Bearer ga_some-tenant-key' } });
    expect(tenantKey.status).toBe(503);

    expect((await call('/healthz')).status).toBe(200);
  });
});
