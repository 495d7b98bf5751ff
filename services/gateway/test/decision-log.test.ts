import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { refundPolicy, startFixture, type GatewayFixture } from './gateway-fixture';

// Two tenants record their decisions; each exports only its own, with an `operate` key.
let f: GatewayFixture;
const owner: Record<string, string> = {};

const lines = async (response: Response) =>
  (await response.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; policy: { id: string }; decision: string; job: { context: Record<string, unknown> }; traceId?: string });

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

  it('filters by outcome, status, rule, subject and tool, and keeps the newest `limit` that match', async () => {
    const key = owner['shop-a'];
    const made: Array<{ id: string; decision: string; rules: string[] }> = [];
    for (const [who, tool, amount] of [['ann', 'issue_refund', 700], ['bob', 'issue_refund', 10], ['ann', 'send_email', 900], ['ann', 'issue_refund', 30]] as const) {
      const job = { policy: 'refunds', input: 'refund', context: { amount }, subject: { id: who }, action: { kind: 'tool_call', tool, args: { amount } } };
      made.push(await (await f.call('/v1/checks', { body: job, key })).json());
    }
    expect(made.map((d) => d.decision)).toEqual(['deny', 'allow', 'deny', 'allow']);
    const ids = async (q: string) => (await lines(await f.call(`/v1/decision-log?since=1h&${q}`, { key }))).map((e) => e.id).filter((id) => made.some((d) => d.id === id));
    expect(await ids('decision=deny')).toEqual([made[0].id, made[2].id]);
    expect(await ids('decision=allow&subject=ann')).toEqual([made[3].id]);
    expect(await ids('subject=ann&tool=issue_refund')).toEqual([made[0].id, made[3].id]);
    expect(await ids('tool=send_email')).toEqual([made[2].id]);
    expect(await ids('status=guard_error')).toEqual([]);
    expect(await ids('status=ok&subject=bob')).toEqual([made[1].id]);
    // A rule of the rails: a refund over 50 held by refund-desk's over-50.
    const desk = { ...parse(readFileSync(join(import.meta.dirname, '../../../examples/policies/refund-desk.yaml'), 'utf8')), decisionLog: true };
    expect((await f.call('/v1/policies/refund-desk', { method: 'PUT', body: desk, key })).status).toBe(200);
    const deskJob = (amount: number) => ({ policy: 'refund-desk', subject: { id: 'cy', roles: ['support_agent'] }, action: { kind: 'tool_call', tool: 'issue_refund', args: { user_id: 'cy', amount, reason: 'broken' } } });
    const held = await (await f.call('/v1/checks', { body: deskJob(80), key })).json();
    const small = await (await f.call('/v1/checks', { body: deskJob(20), key })).json();
    expect([held.decision, small.decision]).toEqual(['pending', 'allow']);
    expect(held.rules).toEqual(['tools.issue_refund.approval.over-50']);
    const rule = (await lines(await f.call('/v1/decision-log?rule=tools.issue_refund.approval.over-50&policy=refund-desk', { key }))).map((e) => e.id);
    expect(rule).toEqual([held.id]);
    expect(await ids('rule=no.such.rule')).toEqual([]);
    // The newest two that match, oldest first.
    expect(await ids('subject=ann&limit=2')).toEqual([made[2].id, made[3].id]);
    // Every entry names its trace.
    const [entry] = await lines(await f.call('/v1/decision-log?since=1h&subject=bob', { key }));
    expect(entry.traceId).toMatch(/^[0-9a-f]{32}$/);
    for (const bad of ['decision=maybe', 'limit=0', 'status=fine', 'rule=']) {
      const refused = await f.call(`/v1/decision-log?${bad}`, { key });
      expect(refused.status, bad).toBe(400);
    }
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
