import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refundPolicy, startFixture, type GatewayFixture } from './gateway-fixture';

// Two tenants record their decisions; each exports only its own, with an `operate` key.
let f: GatewayFixture;
const owner: Record<string, string> = {};

const lines = async (response: Response) =>
  (await response.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; policy: { id: string }; decision: string; job: { context: Record<string, unknown> } });

beforeAll(async () => {
  f = await startFixture({ stages: ['executor', 'memory'] });
  for (const tenant of ['shop-a', 'shop-b']) {
    owner[tenant] = (await (await f.call('/v1/tenants', { body: { id: tenant } })).json()).apiKey;
    const put = await f.call('/v1/policies/refunds', { method: 'PUT', body: { ...refundPolicy(), decisionLog: true }, key: owner[tenant] });
    expect(put.status).toBe(200);
    expect((await (await f.call('/v1/policies/refunds/compile', { method: 'POST', key: owner[tenant] })).json()).status).toBe('promoted');
  }
});
afterAll(async () => {
  await f?.close();
});

describe('GET /v1/decision-log', () => {
  it("streams the tenant's own recorded decisions as NDJSON, oldest first", async () => {
    const made: string[] = [];
    for (const amount of [500, 20]) {
      const decision = await (await f.call('/v1/checks', { body: { policy: 'refunds', input: 'refund', context: { amount } }, key: owner['shop-a'] })).json();
      made.push(decision.id);
    }
    const theirs = await (await f.call('/v1/checks', { body: { policy: 'refunds', input: 'refund', context: { amount: 7 } }, key: owner['shop-b'] })).json();

    const response = await f.call('/v1/decision-log?policy=refunds&since=1h', { key: owner['shop-a'] });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    const entries = await lines(response);
    expect(entries.map((e) => e.id)).toEqual(made);
    expect(entries.map((e) => e.decision)).toEqual(['deny', 'allow']);
    expect(entries[0].job.context).toEqual({ amount: 500 });
    expect((await lines(await f.call('/v1/decision-log', { key: owner['shop-b'] }))).map((e) => e.id)).toEqual([theirs.id]);
    // A window that ends before anything was recorded is empty.
    expect(await lines(await f.call('/v1/decision-log?until=2000-01-01T00:00:00Z', { key: owner['shop-a'] }))).toEqual([]);
  });

  it('needs the operate scope, and names a bad time', async () => {
    const agent = (await (await f.call('/v1/keys', { body: { name: 'agent', scopes: ['check'] }, key: owner['shop-a'] })).json()).apiKey;
    const refused = await f.call('/v1/decision-log', { key: agent });
    expect(refused.status).toBe(403);
    const bad = await f.call('/v1/decision-log?since=yesterday', { key: owner['shop-a'] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toMatch(/since/);
  });
});
