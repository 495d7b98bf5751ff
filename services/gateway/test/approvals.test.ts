import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startFixture, type GatewayFixture } from './gateway-fixture';

const refundDesk = parse(readFileSync(join(import.meta.dirname, '../../../examples/policies/refund-desk.yaml'), 'utf8'));
const subject = { id: 'u-1', roles: ['support_agent'], attributes: { email: 'ann@example.com' } };
const refund = (context: Record<string, unknown> = {}) => ({
  policy: 'refund-desk',
  subject,
  action: { kind: 'tool_call', tool: 'issue_refund', args: { user_id: 'u-1', amount: 80, reason: 'broken item' } },
  context,
});

let f: GatewayFixture;
/** The shop's own key (scope admin): the operator's. */
let operatorKey: string;
/** What the agent holds: scope `check` only. */
let tenantKey: string;

beforeAll(async () => {
  f = await startFixture();
  const created = await f.call('/v1/tenants', { body: { id: 'shop' } });
  operatorKey = (await created.json()).apiKey;
  tenantKey = (await (await f.call('/v1/keys', { body: { name: 'agent', scopes: ['check'] }, key: operatorKey })).json()).apiKey;
  expect((await f.call('/v1/policies/refund-desk', { method: 'PUT', body: refundDesk, key: operatorKey })).status).toBe(200);
});
afterAll(async () => {
  await f?.close();
});

describe('approvals over HTTP', () => {
  it("holds a refund over 50, lets only an operator approve it (not the agent's key), then allows that call once", async () => {
    const pending = await (await f.call('/v1/checks', { body: refund(), key: tenantKey })).json();
    expect(pending).toMatchObject({ decision: 'pending', layer: 'rails' });
    const token = pending.approval.token as string;

    const byAgent = await f.call('/v1/approvals', { body: { token, approver: 'agent', tenant: 'shop' }, key: tenantKey });
    expect(byAgent.status).toBe(403);
    expect((await byAgent.json()).error).toMatchObject({ code: 'SCOPE_REQUIRED', details: { scope: 'operate' } });
    const otherTenant = await f.call('/v1/approvals', { body: { token, approver: 'ops', tenant: 'default' }, key: operatorKey });
    expect(otherTenant.status).toBe(403);
    const wrongTenant = await f.call('/v1/approvals', { body: { token, approver: 'ops' } });
    expect(wrongTenant.status).toBe(404);
    const self = await f.call('/v1/approvals', { body: { token, approver: 'u-1', tenant: 'shop' } });
    expect(self.status).toBe(403);
    // The tenant's operator approves its own tenant's call without naming the tenant.
    const approved = await f.call('/v1/approvals', { body: { token, approver: 'ops-lead' }, key: operatorKey });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toEqual({ result: 'approved' });

    const allowed = await (await f.call('/v1/checks', { body: refund({ approvalToken: token }), key: tenantKey })).json();
    expect(allowed).toMatchObject({ decision: 'allow', layer: 'rails' });
    const reused = await (await f.call('/v1/checks', { body: refund({ approvalToken: token }), key: tenantKey })).json();
    expect(reused.decision).not.toBe('allow');
    const late = await f.call('/v1/approvals', { body: { token, approver: 'ops-lead', tenant: 'shop' } });
    expect(late.status).toBe(409);
  });

  it('a used token stays used after the decision it allowed has expired (same idempotency key, same job id)', async () => {
    const pending = await (await f.call('/v1/checks', { body: refund(), key: tenantKey })).json();
    const token = pending.approval.token as string;
    expect((await f.call('/v1/approvals', { body: { token, approver: 'ops-lead' }, key: operatorKey })).status).toBe(200);
    const job = { ...refund({ approvalToken: token }), idempotencyKey: 'refund-order-9' };
    const allowed = await (await f.call('/v1/checks', { body: job, key: tenantKey })).json();
    expect(allowed.decision).toBe('allow');
    // The decision and the key's binding expire (resultTtlSeconds), long after the completed queue
    // job was removed (an hour); the approval record outlives them all.
    const prefix = f.config.prefix;
    expect(await f.runtime.queues.queue('executor').remove(allowed.id)).toBe(1);
    expect(await f.runtime.redis.del(`${prefix}:shop:decision:${allowed.id}`, `${prefix}:shop:idempotency:${allowed.id}`)).toBe(2);
    const replayed = await (await f.call('/v1/checks', { body: job, key: tenantKey })).json();
    expect(replayed.id).toBe(allowed.id);
    expect(replayed.decision).toBe('deny');
    expect(replayed.reasons.join(' ')).toContain('already been used');
  });

  it('names the invalid fields of an approval body', async () => {
    const response = await f.call('/v1/approvals', { body: { token: 'short' } });
    expect(response.status).toBe(400);
    const paths = (await response.json()).error.issues.map((i: { path: string }) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['token', 'approver']));
  });
});
