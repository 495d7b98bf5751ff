import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { waitFor } from '@guardagent/testing';
import { startFixture, type GatewayFixture } from './gateway-fixture';

// The approvals API (issue 36): list held calls, approve or reject them by id with the approver's
// name and a reason, read one, and fail closed at expiry. Real gateway, workers and Redis.
const refundDesk = parse(readFileSync(join(import.meta.dirname, '../../../examples/policies/refund-desk.yaml'), 'utf8'));
const quickDesk = { ...refundDesk, id: 'quick-desk', rails: { ...refundDesk.rails, approval: { ttlSeconds: 1 } } };
const subject = (id: string) => ({ id, roles: ['support_agent'], attributes: { email: `${id}@example.com` } });
const refund = (who: string, amount: number, context: Record<string, unknown> = {}, policy = 'refund-desk') => ({
  policy,
  subject: subject(who),
  action: { kind: 'tool_call', tool: 'issue_refund', args: { user_id: who, amount, reason: 'broken item' } },
  context,
});

let f: GatewayFixture;
let operatorKey: string;
let agentKey: string;
let otherOperatorKey: string;

beforeAll(async () => {
  f = await startFixture({ stages: ['executor'], approvalWebhooks: false });
  operatorKey = (await (await f.call('/v1/tenants', { body: { id: 'shop' } })).json()).apiKey;
  agentKey = (await (await f.call('/v1/keys', { body: { name: 'agent', scopes: ['check'] }, key: operatorKey })).json()).apiKey;
  otherOperatorKey = (await (await f.call('/v1/tenants', { body: { id: 'other-shop' } })).json()).apiKey;
  for (const policy of [refundDesk, quickDesk]) {
    expect((await f.call(`/v1/policies/${policy.id}`, { method: 'PUT', body: policy, key: operatorKey })).status).toBe(200);
  }
  expect((await f.call('/v1/policies/refund-desk', { method: 'PUT', body: refundDesk, key: otherOperatorKey })).status).toBe(200);
});
afterAll(async () => {
  await f?.close();
});

const check = async (body: unknown, key = agentKey) => (await f.call('/v1/checks', { body, key })).json();

describe('GET /v1/approvals', () => {
  it("lists the tenant's pending calls oldest first with why and until when, filtered and a page at a time, never the token", async () => {
    const held = [];
    for (const [who, amount] of [['u-10', 60], ['u-11', 70], ['u-10', 80]] as const) held.push(await check(refund(who, amount)));
    expect(held.map((d) => d.decision)).toEqual(['pending', 'pending', 'pending']);
    const ids = held.map((d) => d.approval.id as string);
    expect(ids.every((id) => /^[0-9a-f]{64}$/.test(id))).toBe(true);
    // Another tenant's held call is not listed here.
    expect((await check(refund('u-10', 90), otherOperatorKey)).decision).toBe('pending');

    const all = await f.call('/v1/approvals?status=pending&policy=refund-desk&limit=500', { key: operatorKey });
    expect(all.status).toBe(200);
    const listed = await all.json();
    const mine = listed.approvals.filter((a: { id: string }) => ids.includes(a.id));
    expect(mine).toHaveLength(3);
    expect(listed.approvals.every((a: { tenant: string }) => a.tenant === 'shop')).toBe(true);
    expect(mine[0]).toMatchObject({
      status: 'pending',
      tenant: 'shop',
      policy: 'refund-desk',
      tool: 'issue_refund',
      args: { user_id: 'u-10', amount: 60, reason: 'broken item' },
      subject: 'u-10',
      reasons: ["refunds over 50 need a supervisor's approval"],
      rules: ['tools.issue_refund.approval.over-50'],
      decisionId: held[0].id,
      expiresAt: held[0].approval.expiresAt,
    });
    // The policy's approval.ttlSeconds (900): the time left, counted down from the moment it was held.
    const left = (Date.parse(held[0].approval.expiresAt) - Date.now()) / 1000;
    expect(Math.abs(mine[0].expiresInSeconds - left)).toBeLessThan(5);
    expect(mine[0].expiresInSeconds).toBeGreaterThan(800);
    expect(JSON.stringify(listed)).not.toContain('apv_');

    const bySubject = await (await f.call('/v1/approvals?subject=u-10&tool=issue_refund', { key: operatorKey })).json();
    expect(bySubject.approvals.map((a: { id: string }) => a.id).filter((id: string) => ids.includes(id))).toEqual([ids[0], ids[2]]);
    expect(bySubject.approvals.every((a: { subject: string }) => a.subject === 'u-10')).toBe(true);
    expect((await (await f.call('/v1/approvals?tool=delete_user', { key: operatorKey })).json()).approvals).toEqual([]);

    let cursor: string | null = '';
    const pages: string[] = [];
    while (cursor !== null) {
      const page = await (await f.call(`/v1/approvals?policy=refund-desk&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: operatorKey })).json();
      pages.push(...page.approvals.map((a: { id: string }) => a.id));
      cursor = page.next;
    }
    expect(pages).toEqual(listed.approvals.map((a: { id: string }) => a.id));

    // The server admin key names the tenant.
    const asAdmin = await (await f.call('/v1/approvals?tenant=other-shop')).json();
    expect(asAdmin.approvals.map((a: { tenant: string }) => a.tenant)).toEqual(['other-shop']);
    expect((await f.call('/v1/approvals?tenant=other-shop', { key: operatorKey })).status).toBe(403);
  });
});

describe('approve and reject by id', () => {
  it('approved by id with a reason: the retry with the token runs once, then the call is gone from the list', async () => {
    const held = await check(refund('u-20', 75));
    const { id, token } = held.approval;
    const approved = await f.call(`/v1/approvals/${id}/approve`, { body: { approver: 'ops-lead', reason: 'customer is a regular' }, key: operatorKey });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({
      result: 'approved',
      approval: { id, status: 'approved', approver: 'ops-lead', reason: 'customer is a regular', subject: 'u-20' },
    });
    const pending = await (await f.call('/v1/approvals', { key: operatorKey })).json();
    expect(pending.approvals.map((a: { id: string }) => a.id)).not.toContain(id);
    const approvedList = await (await f.call('/v1/approvals?status=approved', { key: operatorKey })).json();
    expect(approvedList.approvals.map((a: { id: string }) => a.id)).toContain(id);

    expect((await check(refund('u-20', 75, { approvalToken: token }))).decision).toBe('allow');
    const again = await check(refund('u-20', 75, { approvalToken: token }));
    expect(again.decision).toBe('deny');
    expect(again.reasons.join(' ')).toContain('already been used');
    // The agent reads its call's status with its own check key and the token.
    expect(await (await f.call(`/v1/approvals/${token}`, { key: agentKey })).json()).toMatchObject({ id, status: 'used', approver: 'ops-lead' });
    expect((await f.call(`/v1/approvals/${id}/approve`, { body: { approver: 'ops-lead' }, key: operatorKey })).status).toBe(409);
  });

  it('rejected with a reason: the retry is denied with who rejected it and why, and it cannot be approved after', async () => {
    const held = await check(refund('u-21', 95));
    const { id, token } = held.approval;
    const rejected = await f.call(`/v1/approvals/${id}/reject`, { body: { approver: 'ops-lead', reason: 'refunded twice already' }, key: operatorKey });
    expect(rejected.status).toBe(200);
    expect((await rejected.json()).approval).toMatchObject({ status: 'rejected', approver: 'ops-lead', reason: 'refunded twice already' });
    const retry = await check(refund('u-21', 95, { approvalToken: token }));
    expect(retry.decision).toBe('deny');
    expect(retry.rules).toContain('tools.issue_refund.approval');
    expect(retry.reasons).toContain('the approval was rejected by ops-lead: refunded twice already');
    const late = await f.call(`/v1/approvals/${id}/approve`, { body: { approver: 'ops-boss' }, key: operatorKey });
    expect(late.status).toBe(409);
    expect((await late.json()).error).toMatchObject({ code: 'CONFLICT', details: { status: 'rejected' } });
    expect((await f.call(`/v1/approvals/${token}/reject`, { body: { approver: 'ops-lead' }, key: operatorKey })).status).toBe(200);
    expect(await (await f.call(`/v1/approvals/${token}`, { key: agentKey })).json()).toMatchObject({ status: 'rejected', reason: 'refunded twice already' });
  });

  it("an agent's check key can neither approve nor reject (nor list, nor read by id); another tenant's ids are unknown", async () => {
    const held = await check(refund('u-22', 66));
    const { id, token } = held.approval;
    for (const ref of [id, token]) {
      for (const action of ['approve', 'reject']) {
        const refused = await f.call(`/v1/approvals/${ref}/${action}`, { body: { approver: 'agent', reason: 'let me' }, key: agentKey });
        expect(refused.status).toBe(403);
        expect((await refused.json()).error).toMatchObject({ code: 'SCOPE_REQUIRED', details: { scope: 'operate' } });
      }
    }
    expect((await f.call('/v1/approvals', { key: agentKey })).status).toBe(403);
    expect((await f.call(`/v1/approvals/${id}`, { key: agentKey })).status).toBe(403);
    // Still pending: nothing the agent did decided it.
    expect(await (await f.call(`/v1/approvals/${token}`, { key: agentKey })).json()).toMatchObject({ status: 'pending' });
    expect((await check(refund('u-22', 66, { approvalToken: token }))).reasons).toContain('the approval token has not been approved yet');

    expect((await f.call(`/v1/approvals/${id}/approve`, { body: { approver: 'ops' }, key: otherOperatorKey })).status).toBe(404);
    expect((await f.call(`/v1/approvals/${id}`, { key: otherOperatorKey })).status).toBe(404);
    expect((await f.call(`/v1/approvals/${id}/approve`, { body: { approver: 'u-22' }, key: operatorKey })).status).toBe(403);
    expect((await f.call('/v1/approvals/not-an-id/approve', { body: { approver: 'ops' }, key: operatorKey })).status).toBe(404);
    const blank = await f.call(`/v1/approvals/${id}/reject`, { body: { approver: '  ' }, key: operatorKey });
    expect(blank.status).toBe(400);
  });

  it('fails closed at expiry: an expired call cannot be approved, and its token no longer runs the call', async () => {
    const held = await check(refund('u-23', 70, {}, 'quick-desk'));
    expect(held.decision).toBe('pending');
    const { id, token } = held.approval;
    const expired = await waitFor(
      async () => {
        const view = await (await f.call(`/v1/approvals/${id}`, { key: operatorKey })).json();
        return view.status === 'expired' ? view : null;
      },
      10_000,
      'the held call to expire',
    );
    expect(expired.expiresInSeconds).toBe(0);
    const late = await f.call(`/v1/approvals/${id}/approve`, { body: { approver: 'ops-lead' }, key: operatorKey });
    expect(late.status).toBe(409);
    expect((await late.json()).error.details).toMatchObject({ status: 'expired' });
    const retry = await check(refund('u-23', 70, { approvalToken: token }, 'quick-desk'));
    expect(retry.decision).toBe('deny');
    expect(retry.reasons).toContain('the approval token has expired');
    const listed = await (await f.call('/v1/approvals?policy=quick-desk', { key: operatorKey })).json();
    expect(listed.approvals.map((a: { id: string }) => a.id)).not.toContain(id);
  });
});
