import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '@guardagent/api-keys';
import { ADMIN_KEY, refundPolicy, startFixture, type GatewayFixture } from './gateway-fixture';

// An agent holds a `check` key. Everything that changes what guards it (the policy, an inline
// policy, demonstrations, feedback, approvals, keys) answers 403 naming the scope it needs.

let f: GatewayFixture;
let ownerKey: string;
let agentKey: string;

const issue = async (scopes: string[], key = ownerKey, name = 'k') => (await f.call('/v1/keys', { body: { name, scopes }, key })).json();

beforeAll(async () => {
  f = await startFixture({ stages: ['executor', 'memory'] });
  ownerKey = (await (await f.call('/v1/tenants', { body: { id: 'shop' } })).json()).apiKey;
  expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: refundPolicy(), key: ownerKey })).status).toBe(200);
  expect((await (await f.call('/v1/policies/refunds/compile', { method: 'POST', key: ownerKey })).json()).status).toBe('promoted');
  agentKey = (await issue(['check'], ownerKey, 'refund agent')).apiKey;
});
afterAll(async () => {
  await f?.close();
});

const bigRefund = { policy: 'refunds', input: 'refund please', context: { amount: 500 } };

describe('an agent key (scope check)', () => {
  it('asks for decisions and reads them back', async () => {
    const denied = await (await f.call('/v1/checks', { body: bigRefund, key: agentKey })).json();
    expect(denied.decision).toBe('deny');
    expect((await f.call(`/v1/checks/${denied.id}`, { key: agentKey })).status).toBe(200);
  });

  it('cannot rewrite its policy, and the policy keeps denying', async () => {
    const permissive = { ...refundPolicy(), program: 'return { deny: false, reasons: [] };', examples: [{ id: 'any', input: 'x', label: 0 }] };
    const put = await f.call('/v1/policies/refunds', { method: 'PUT', body: permissive, key: agentKey });
    expect(put.status).toBe(403);
    expect((await put.json()).error).toMatchObject({ code: 'SCOPE_REQUIRED', details: { scope: 'operate' } });
    for (const [path, method] of [
      ['/v1/policies/refunds', 'DELETE'],
      ['/v1/policies/refunds/compile', 'POST'],
      ['/v1/policies/refunds', 'GET'],
      ['/v1/policies', 'GET'],
    ] as const) {
      const res = await f.call(path, { method, key: agentKey });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect((await res.json()).error.details.scope).toBe('operate');
    }
    expect((await (await f.call('/v1/checks', { body: bigRefund, key: agentKey })).json()).decision).toBe('deny');
  });

  it('cannot send a permissive policy inline, in a check or in a batch', async () => {
    const permissive = { ...refundPolicy('mine'), program: 'return { deny: false, reasons: [] };', examples: [{ id: 'any', input: 'x', label: 0 }] };
    const inline = { ...bigRefund, policy: permissive };
    const check = await f.call('/v1/checks', { body: inline, key: agentKey });
    expect(check.status).toBe(403);
    expect((await check.json()).error).toMatchObject({ code: 'SCOPE_REQUIRED', details: { scope: 'operate' } });
    const batch = await f.call('/v1/batches', { body: [bigRefund, inline], key: agentKey });
    expect(batch.status).toBe(403);
    expect((await batch.json()).error.message).toContain('jobs[1].policy');
    expect(batch.headers.get('x-batch-queued')).toBe('0');
    // The owner may.
    const byOwner = await f.call('/v1/checks', { body: inline, key: ownerKey });
    expect(byOwner.status).toBe(200);
    // Accepted and decided under the inline policy (it has no compiled program yet, so it denies).
    expect((await byOwner.json()).policy.id).toBe('mine');
  });

  it('cannot plant demonstrations, feedback or approvals, nor see the keys', async () => {
    const demo = { input: 'refund 5000', label: 0, code: 'return { deny: false, reasons: [] };' };
    const cases: [string, string, unknown, string][] = [
      ['/v1/policies/refunds/demonstrations', 'POST', [demo], 'operate'],
      ['/v1/policies/refunds/demonstrations', 'GET', undefined, 'operate'],
      ['/v1/approvals', 'POST', { token: 'x'.repeat(20), approver: 'me' }, 'operate'],
      ['/v1/keys', 'GET', undefined, 'admin'],
      ['/v1/keys', 'POST', { scopes: ['operate'] }, 'admin'],
    ];
    for (const [path, method, body, scope] of cases) {
      const res = await f.call(path, { method, body, key: agentKey });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect((await res.json()).error.details.scope).toBe(scope);
    }
    const decided = await (await f.call('/v1/checks', { body: bigRefund, key: agentKey })).json();
    const feedback = await f.call(`/v1/checks/${decided.id}/feedback`, { body: { correctLabel: 0, job: bigRefund }, key: agentKey });
    expect(feedback.status).toBe(403);
    expect((await feedback.json()).error.details.scope).toBe('feedback');
  });

  it('with feedback granted, sends feedback on its own decisions', async () => {
    const key = (await issue(['check', 'feedback'])).apiKey;
    const decided = await (await f.call('/v1/checks', { body: bigRefund, key })).json();
    const feedback = await f.call(`/v1/checks/${decided.id}/feedback`, { body: { correctLabel: 1, job: { input: bigRefund.input, context: bigRefund.context } }, key });
    expect(feedback.status).toBe(200);
  });
});

describe("an operator key (scope operate) and the tenant's keys", () => {
  it('an operate key changes policies but not keys', async () => {
    const key = (await issue(['operate'])).apiKey;
    expect((await f.call('/v1/policies/other', { method: 'PUT', body: refundPolicy('other'), key })).status).toBe(200);
    expect((await f.call('/v1/checks', { body: { ...bigRefund, policy: refundPolicy('inline') }, key })).status).toBe(200);
    expect((await f.call('/v1/keys', { key })).status).toBe(403);
  });

  it('lists keys without secrets; rotation keeps id and scopes and retires the old secret', async () => {
    const made = await issue(['check'], ownerKey, 'rotating agent');
    expect(made).toMatchObject({ id: expect.stringMatching(/^k-[0-9a-f]{12}$/), name: 'rotating agent', scopes: ['check'] });
    const listed = await (await f.call('/v1/keys', { key: ownerKey })).json();
    const entry = listed.keys.find((k: { id: string }) => k.id === made.id);
    expect(entry).toEqual({ id: made.id, name: 'rotating agent', scopes: ['check'], createdAt: made.createdAt });
    expect(JSON.stringify(listed)).not.toContain('ga_');
    expect(listed.keys.map((k: { scopes: string[] }) => k.scopes)).toContainEqual(['admin']);

    const rotated = await (await f.call(`/v1/keys/${made.id}/rotate`, { method: 'POST', key: ownerKey })).json();
    expect(rotated).toMatchObject({ id: made.id, scopes: ['check'], rotatedAt: expect.any(String) });
    expect(rotated.apiKey).not.toBe(made.apiKey);
    expect((await f.call('/v1/checks', { body: bigRefund, key: made.apiKey })).status).toBe(401);
    expect((await f.call('/v1/checks', { body: bigRefund, key: rotated.apiKey })).status).toBe(200);

    // With an overlap both secrets work until it ends; revoking ends both at once.
    const overlapped = await (await f.call(`/v1/keys/${made.id}/rotate`, { body: { overlapSeconds: 600 }, key: ownerKey })).json();
    expect((await f.call('/v1/checks', { body: bigRefund, key: rotated.apiKey })).status).toBe(200);
    expect((await f.call('/v1/checks', { body: bigRefund, key: overlapped.apiKey })).status).toBe(200);
    const ttl = await f.runtime.redis.ttl(`${f.config.prefix}:tenant-keys:${hashApiKey(rotated.apiKey)}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(600);
    expect((await f.call(`/v1/keys/${made.id}`, { method: 'DELETE', key: ownerKey })).status).toBe(204);
    expect((await f.call('/v1/checks', { body: bigRefund, key: rotated.apiKey })).status).toBe(401);
    expect((await f.call('/v1/checks', { body: bigRefund, key: overlapped.apiKey })).status).toBe(401);
    expect((await f.call(`/v1/keys/${made.id}`, { method: 'DELETE', key: ownerKey })).status).toBe(404);
  });

  it("keeps the tenant's last admin key unless the server admin revokes it; the server admin can issue a new one", async () => {
    const tenant = (await (await f.call('/v1/tenants', { body: { id: 'solo' } })).json()) as { apiKey: string; key: { id: string } };
    const last = await f.call(`/v1/keys/${tenant.key.id}`, { method: 'DELETE', key: tenant.apiKey });
    expect(last.status).toBe(409);
    expect((await f.call('/v1/keys?tenant=shop', { key: tenant.apiKey })).status).toBe(403);
    expect((await f.call('/v1/keys', { key: ADMIN_KEY })).status).toBe(400);
    expect((await f.call('/v1/keys?tenant=nobody', { key: ADMIN_KEY })).status).toBe(404);
    expect((await f.call(`/v1/keys/${tenant.key.id}?tenant=solo`, { method: 'DELETE', key: ADMIN_KEY })).status).toBe(204);
    expect((await f.call('/v1/keys', { key: tenant.apiKey })).status).toBe(401);
    const recovered = await (await f.call('/v1/keys?tenant=solo', { body: { scopes: ['admin'] }, key: ADMIN_KEY })).json();
    expect((await f.call('/v1/keys', { key: recovered.apiKey })).status).toBe(200);
  });

  it('a key made before scopes existed (stored as the bare tenant id) keeps full rights', async () => {
    const legacy = 'ga_legacy-key-made-before-scopes-0123456789abcdef';
    await f.runtime.redis.set(`${f.config.prefix}:tenant-keys:${hashApiKey(legacy)}`, 'shop');
    expect((await f.call('/v1/policies/refunds', { key: legacy })).status).toBe(200);
  });

  it('names an unknown scope', async () => {
    const res = await f.call('/v1/keys', { body: { scopes: ['check', 'root'] }, key: ownerKey });
    expect(res.status).toBe(400);
    expect((await res.json()).error.issues.map((i: { path: string }) => i.path)).toContain('scopes[1]');
  });
});

describe('guardagent keys (the CLI)', () => {
  const BIN = join(import.meta.dirname, '..', '..', '..', 'packages', 'cli', 'bin', 'guardagent.mjs');
  const cli = (args: string[], apiKey: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'keys', '--gateway', f.url, ...args], { env: { ...process.env, GUARDAGENT_API_KEY: apiKey } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  it('creates a check key, lists it, rotates and revokes it; an agent key is refused with the scope named', async () => {
    const created = await cli(['create', '--scopes', 'check', '--name', 'cli agent'], ownerKey);
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key).toMatchObject({ name: 'cli agent', scopes: ['check'], apiKey: expect.stringMatching(/^ga_/) });
    const listed = await cli(['list'], ownerKey);
    expect(JSON.parse(listed.stdout).map((k: { id: string }) => k.id)).toContain(key.id);
    const rotated = JSON.parse((await cli(['rotate', key.id], ownerKey)).stdout);
    expect(rotated.id).toBe(key.id);
    const refused = await cli(['list'], rotated.apiKey);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("SCOPE_REQUIRED");
    expect(refused.stderr).toContain("'admin'");
    expect((await cli(['revoke', key.id], ownerKey)).code).toBe(0);
    expect((await f.call('/v1/checks', { body: bigRefund, key: rotated.apiKey })).status).toBe(401);
    const bad = await cli(['create', '--scopes', 'check,root'], ownerKey);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown: root');
  });
});
