import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimitKey } from '@guardagent/rails';
import { waitFor } from '@guardagent/testing';
import { refundPolicy, startFixture, strictRefundShadow, type GatewayFixture } from './gateway-fixture';

// Tenant shop-a records refunds and payments; shop-b records its own refunds. Replays re-decide a
// tenant's own log through the fixture's executors.
let f: GatewayFixture;
let redis: Redis;
const owner: Record<string, string> = {};

/** Rails only: pay at most twice per subject per hour; over 100 needs an approval. */
const payPolicy = {
  id: 'pay',
  decisionLog: true,
  rails: {
    roles: { payer: { tools: ['pay'] } },
    tools: {
      pay: {
        args: { type: 'object', properties: { amount: { type: 'number' } } },
        rateLimit: { max: 2, windowSeconds: 3600 },
        requireApproval: [{ id: 'big-payment', when: 'args.amount > 100', message: 'payments over 100 need an approval' }],
      },
    },
  },
};

const logSize = async (tenant: string) => (await (await f.call('/v1/decision-log', { key: owner[tenant] })).text()).split('\n').filter(Boolean).length;

/** Start a replay and wait for it to finish; the finished record. */
async function replay(tenant: string, policy: string, body: Record<string, unknown>) {
  const started = await f.call(`/v1/policies/${policy}/replays`, { body, key: owner[tenant] });
  expect(started.status).toBe(202);
  const { id } = await started.json();
  expect(started.headers.get('location')).toBe(`/v1/replays/${id}`);
  return waitFor(
    async () => {
      const record = await (await f.call(`/v1/replays/${id}`, { key: owner[tenant] })).json();
      return record.state === 'running' ? null : record;
    },
    30_000,
    `replay ${id}`,
  );
}

beforeAll(async () => {
  f = await startFixture({ stages: ['executor', 'memory'] });
  redis = new Redis(f.config.redisUrl!);
  for (const tenant of ['shop-a', 'shop-b']) {
    owner[tenant] = (await (await f.call('/v1/tenants', { body: { id: tenant } })).json()).apiKey;
    expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: { ...refundPolicy(), decisionLog: true }, key: owner[tenant] })).status).toBe(200);
    expect((await (await f.call('/v1/policies/refunds/compile', { method: 'POST', key: owner[tenant] })).json()).status).toBe('promoted');
  }
  expect((await f.call('/v1/policies/pay', { method: 'PUT', body: payPolicy, key: owner['shop-a'] })).status).toBe(200);
  // Recorded traffic: version 1 denies 500 and allows the rest.
  for (const amount of [500, 50, 20, 5]) {
    const decision = await (await f.call('/v1/checks', { body: { policy: 'refunds', input: 'refund', context: { amount } }, key: owner['shop-a'] })).json();
    expect(decision.decision).toBe(amount > 100 ? 'deny' : 'allow');
  }
  expect((await (await f.call('/v1/checks', { body: { policy: 'refunds', input: 'refund', context: { amount: 50 } }, key: owner['shop-b'] })).json()).decision).toBe('allow');
  // Two payments fill subject s1's window; a big one is held (its token issued).
  for (const amount of [1, 2, 500]) {
    const decision = await (
      await f.call('/v1/checks', { body: { policy: 'pay', subject: { id: 's1', roles: ['payer'] }, action: { kind: 'tool_call', tool: 'pay', args: { amount } } }, key: owner['shop-a'] })
    ).json();
    expect(decision.decision).toBe(amount > 100 ? 'pending' : 'allow');
  }
  expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: { ...strictRefundShadow(), decisionLog: true }, key: owner['shop-a'] })).status).toBe(200);
  expect((await (await f.call('/v1/policies/refunds/compile?shadow=true', { method: 'POST', key: owner['shop-a'] })).json()).status).toBe('promoted');
});
afterAll(async () => {
  redis?.disconnect();
  await f?.close();
});

describe('POST /v1/policies/:id/replays', () => {
  it('re-decides recorded traffic with the shadow version and reports the exact flips, with examples, as evidence on its program', async () => {
    const sizeBefore = await logSize('shop-a');
    const done = await replay('shop-a', 'refunds', { since: '1h' });
    expect(done).toMatchObject({ state: 'done', policyId: 'refunds', candidate: { named: 'shadow', version: '2' }, progress: { read: 4, submitted: 4, decided: 4, truncated: false } });
    // 50 and 20 flip to deny; 500 stays denied with another reason; 5 is unchanged.
    expect(done.diff).toMatchObject({ recorded: 4, compared: 4, unchanged: 1, flips: 2, missing: 0, notReplayable: 0 });
    expect(done.diff.changes).toMatchObject({ 'allow→deny': 2, 'deny→allow': 0, 'reasons or rules changed': 1, 'newly erroring': 0 });
    expect(done.diff.examples['allow→deny'].map((e: { replayed: { reasons: string[] } }) => e.replayed.reasons[0])).toEqual(['refund of 50 is over 10', 'refund of 20 is over 10']);
    expect(done.diff.byRole['(no subject)']).toEqual({ 'allow→deny': 2, 'reasons or rules changed': 1 });
    // Replayed checks are not recorded.
    expect(await logSize('shop-a')).toBe(sizeBefore);
    // The person promoting the shadow sees the replay beside its labelled examples.
    const view = await (await f.call('/v1/policies/refunds', { key: owner['shop-a'] })).json();
    expect(view.shadow.replay).toMatchObject({ id: done.id, policyDigest: done.candidate.digest, compared: 4, flips: 2, truncated: false });
    const list = await (await f.call('/v1/policies/refunds/replays', { key: owner['shop-a'] })).json();
    expect(list.replays.map((r: { id: string }) => r.id)).toContain(done.id);
  });

  it('reports no flips against the current version, and a limit takes the oldest entries', async () => {
    const same = await replay('shop-a', 'refunds', { version: 'current' });
    expect(same.diff).toMatchObject({ compared: 4, unchanged: 4, flips: 0 });
    const limited = await replay('shop-a', 'refunds', { version: 'current', limit: 2 });
    expect(limited.progress).toMatchObject({ read: 2, truncated: true });
    expect(limited.diff.compared).toBe(2);
    // A stored version named by digest.
    const byDigest = await replay('shop-a', 'refunds', { version: same.candidate.digest });
    expect(byDigest).toMatchObject({ candidate: { named: 'digest', version: '1' }, diff: { flips: 0, compared: 4 } });
  });

  it("counts rate limits in the replay's own windows, never in the live ones, and issues no approval token", async () => {
    const live = rateLimitKey(f.config.prefix, { tenant: 'shop-a', policyId: 'pay', tool: 'pay', subjectId: 's1' });
    const tokens = async () => (await redis.keys(`${f.config.prefix}:approval:*`)).length;
    expect(await redis.zcard(live)).toBe(2);
    expect(await tokens()).toBe(1);
    // Had the replay counted in s1's live window (full), both payments would flip to deny.
    const done = await replay('shop-a', 'pay', { version: 'current' });
    expect(done.diff).toMatchObject({ compared: 3, unchanged: 3, flips: 0 });
    expect(await redis.zcard(live)).toBe(2);
    expect(await tokens()).toBe(1);
  });

  it("keeps tenants apart: a tenant replays only its own log and cannot read another's replay", async () => {
    const theirs = await replay('shop-b', 'refunds', { version: 'current' });
    expect(theirs.diff).toMatchObject({ recorded: 1, compared: 1, unchanged: 1 });
    expect((await f.call(`/v1/replays/${theirs.id}`, { key: owner['shop-a'] })).status).toBe(404);
    // shop-a's shadow digest means nothing in shop-b.
    const digest = (await (await f.call('/v1/policies/refunds', { key: owner['shop-a'] })).json()).shadow.digest;
    expect((await f.call('/v1/policies/refunds/replays', { body: { version: digest }, key: owner['shop-b'] })).status).toBe(404);
  });

  it('refuses bad requests with the field named, and needs the operate scope', async () => {
    const post = (body: unknown, policy = 'refunds', key = owner['shop-a']) => f.call(`/v1/policies/${policy}/replays`, { body, key });
    const bad = await post({ version: 'newest' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toMatch(/version/);
    expect((await post({ since: 'yesterday' })).status).toBe(400);
    const backwards = await post({ since: '2020-01-02T00:00:00Z', until: '2020-01-01T00:00:00Z' });
    expect(backwards.status).toBe(400);
    expect(JSON.stringify(await backwards.json())).toMatch(/until/);
    expect((await post({ limit: 0 })).status).toBe(400);
    expect((await post({ unknown: true })).status).toBe(400);
    expect((await post({}, 'nothing')).status).toBe(404);
    // pay has no shadow version; a digest of refunds is not a version of pay.
    expect((await post({}, 'pay')).status).toBe(404);
    const refundsDigest = (await (await f.call('/v1/policies/refunds', { key: owner['shop-a'] })).json()).digest;
    expect((await post({ version: refundsDigest }, 'pay')).status).toBe(404);
    expect((await f.call('/v1/replays/no-such-replay', { key: owner['shop-a'] })).status).toBe(404);
    // A version with guard requests and no verified program: refused, naming what to do.
    const unverified = { ...refundPolicy('draft'), mode: 'auto', program: undefined, decisionLog: true };
    expect((await f.call('/v1/policies/draft', { method: 'PUT', body: unverified, key: owner['shop-a'] })).status).toBe(200);
    const costly = await post({ version: 'current' }, 'draft');
    expect(costly.status).toBe(400);
    expect(JSON.stringify(await costly.json())).toMatch(/"path":"llm".*would call the LLM: compile it first \(POST \/v1\/policies\/draft\/compile\)/);
    expect((await post({ version: 'current', llm: true }, 'draft')).status).toBe(202);
    const compiledOnly = { ...unverified, mode: 'compiled', version: '2' };
    expect((await f.call('/v1/policies/draft', { method: 'PUT', body: compiledOnly, key: owner['shop-a'] })).status).toBe(200);
    const useless = await post({ version: 'current', llm: true }, 'draft');
    expect(useless.status).toBe(400);
    expect(JSON.stringify(await useless.json())).toMatch(/NO_COMPILED_PROGRAM/);
    const agent = (await (await f.call('/v1/keys', { body: { name: 'agent', scopes: ['check'] }, key: owner['shop-a'] })).json()).apiKey;
    expect((await post({}, 'refunds', agent)).status).toBe(403);
  });
});
