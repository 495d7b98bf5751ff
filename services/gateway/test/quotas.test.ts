import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport } from '@guardagent/client';
import { QuotaExceededError } from '@guardagent/errors';
import { refundPolicy, startFixture, type GatewayFixture } from './gateway-fixture';

// No stage workers at first: checks queued with wait=0 stay in flight until the executor starts.

let f: GatewayFixture;
const keys: Record<string, string> = {};

async function tenant(id: string, quotas: Record<string, number>): Promise<string> {
  keys[id] = (await (await f.call('/v1/tenants', { body: { id } })).json()).apiKey;
  const set = await f.call(`/v1/tenants/${id}/quotas`, { method: 'PUT', body: quotas });
  expect(set.status).toBe(200);
  expect(await set.json()).toMatchObject({ quotas, overrides: quotas, inFlight: 0 });
  expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: refundPolicy(), key: keys[id] })).status).toBe(200);
  return keys[id];
}
const submit = (key: string, amount = 5) => f.call('/v1/checks?wait=0', { body: { policy: 'refunds', input: 'refund', context: { amount } }, key });

beforeAll(async () => {
  f = await startFixture({ stages: [] });
});
afterAll(async () => {
  await f?.close();
});

describe('per-tenant quotas', () => {
  it('over its check rate a tenant gets 429 with Retry-After and nothing is queued; another tenant is served', async () => {
    const slow = await tenant('slow', { checksPerSecond: 1, checkBurst: 3 });
    const other = await tenant('other', {});
    for (let i = 0; i < 3; i++) expect((await submit(slow)).status).toBe(202);
    const refused = await submit(slow);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await refused.json()).error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { quota: 'checksPerSecond', limit: 1 } });
    expect((await (await f.call('/v1/quotas', { key: slow })).json()).inFlight).toBe(3);
    for (let i = 0; i < 5; i++) expect((await submit(other)).status).toBe(202);
    // The typed error in the SDK.
    const sdk = new HttpTransport({ baseUrl: f.url, apiKey: slow });
    const error = await sdk.submit({ policy: 'refunds', input: 'refund' }).catch((e: unknown) => e);
    await sdk.close();
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect((error as QuotaExceededError).details).toMatchObject({ quota: 'checksPerSecond', retryAfterSeconds: expect.any(Number) });
  });

  it('caps checks in flight; decisions free the room', async () => {
    const busy = await tenant('busy', { jobsInFlight: 2 });
    expect((await submit(busy)).status).toBe(202);
    expect((await submit(busy)).status).toBe(202);
    const refused = await submit(busy);
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.details.quota).toBe('jobsInFlight');
    f.runtime.startWorkers(['executor']);
    // Once the executor has decided them, the set is empty again.
    for (let i = 0; i < 500 && (await (await f.call('/v1/quotas', { key: busy })).json()).inFlight > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await (await f.call('/v1/quotas', { key: busy })).json()).inFlight).toBe(0);
    const decided = await f.call('/v1/checks', { body: { policy: 'refunds', input: 'refund', context: { amount: 500 } }, key: busy });
    expect(decided.status).toBe(200);
    expect((await decided.json()).decision).toBe('deny');
  });

  it('a batch over the check rate slows down instead of failing halfway', async () => {
    const batcher = await tenant('batcher', { checksPerSecond: 100, checkBurst: 20 });
    const jobs = Array.from({ length: 70 }, (_, i) => JSON.stringify({ policy: 'refunds', input: `refund ${i}`, context: { amount: i } })).join('\n');
    const res = await f.call('/v1/batches', { raw: jobs, contentType: 'application/x-ndjson', key: batcher });
    expect(res.status).toBe(202);
    expect((await res.json()).total).toBe(70);
  });

  it('caps stored policies; updating one that exists still works', async () => {
    const few = await tenant('few', { policies: 2 });
    expect((await f.call('/v1/policies/second', { method: 'PUT', body: refundPolicy('second'), key: few })).status).toBe(200);
    const third = await f.call('/v1/policies/third', { method: 'PUT', body: refundPolicy('third'), key: few });
    expect(third.status).toBe(429);
    expect((await third.json()).error.details).toMatchObject({ quota: 'policies', limit: 2 });
    expect((await f.call('/v1/policies/second', { method: 'PUT', body: { ...refundPolicy('second'), version: '2' }, key: few })).status).toBe(200);
    expect((await (await f.call('/v1/policies', { key: few })).json()).policies).toHaveLength(2);
  });

  it('only the server admin key sets quotas, naming bad fields', async () => {
    expect((await f.call('/v1/tenants/slow/quotas', { method: 'PUT', body: { checksPerSecond: 1_000_000 }, key: keys.slow })).status).toBe(403);
    const bad = await f.call('/v1/tenants/slow/quotas', { method: 'PUT', body: { checksPerSecond: -1, burst: 3 } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.issues.map((i: { path: string }) => i.path)).toEqual(expect.arrayContaining(['checksPerSecond']));
    expect((await f.call('/v1/tenants/nobody/quotas')).status).toBe(404);
  });
});
