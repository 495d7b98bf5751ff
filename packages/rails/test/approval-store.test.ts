import { describe, expect, it } from 'vitest';
import { uniquePrefix } from '@guardagent/testing';
import {
  approvalTokenHash,
  InMemoryApprovalStore,
  RedisApprovalStore,
  type ApprovalRequest,
  type ApprovalStore,
} from '../src/index';
import { redisConnection } from './redis-clients';

const refund: ApprovalRequest = {
  tenant: 'acme',
  policyId: 'refund-desk',
  tool: 'issue_refund',
  args: { user_id: 'cust-1', amount: 60, reason: 'broken' },
  subjectId: 'cust-1',
  ttlSeconds: 900,
};
const call = { tool: refund.tool, args: refund.args, subjectId: refund.subjectId, tenant: 'acme', policyId: 'refund-desk' };

type Factory = (clock: () => number) => ApprovalStore;
const factories: Array<[string, Factory]> = [
  ['RedisApprovalStore', (now) => new RedisApprovalStore({ redis: redisConnection(), prefix: uniquePrefix('apv'), now })],
  ['InMemoryApprovalStore', (now) => new InMemoryApprovalStore({ now })],
];

describe.each(factories)('%s', (_name, make) => {
  const setup = () => {
    const clock = { now: 1_700_000_000_000 };
    return { clock, store: make(() => clock.now) };
  };

  it('issues a random token bound to the call, readable by an approver', async () => {
    const { store } = setup();
    const a = await store.create(refund);
    const b = await store.create(refund);
    expect(a.token).toMatch(/^apv_[A-Za-z0-9_-]{43}$/);
    expect(a.token).not.toBe(b.token);
    expect(a.expiresAt).toBe(new Date(1_700_000_000_000 + 900_000).toISOString());
    const record = await store.get(a.token);
    expect(record).toMatchObject({ tool: 'issue_refund', args: refund.args, subjectId: 'cust-1', status: 'pending' });
    expect(await store.get(a.token, { tenant: 'other' })).toBeNull();
  });

  it('pending -> approve -> allowed exactly once; reuse is refused', async () => {
    const { store } = setup();
    const { token } = await store.create(refund);
    expect(await store.consume(token, call)).toBe('not-approved');
    expect(await store.approve(token, 'supervisor-ann')).toBe('approved');
    expect(await store.approve(token, 'supervisor-ann')).toBe('already-approved');
    expect(await store.peek(token, call)).toBe('allowed');
    expect(await store.peek(token, { ...call, args: {} })).toBe('mismatch');
    expect((await store.get(token))?.approver).toBe('supervisor-ann');
    expect(await store.consume(token, call)).toBe('allowed');
    expect(await store.consume(token, call)).toBe('used');
    expect(await store.peek(token, call)).toBe('used');
    expect(await store.approve(token, 'supervisor-ann')).toBe('used');
  });

  it('refuses other arguments, another tool or another subject, and stays valid for the right call', async () => {
    const { store } = setup();
    const { token } = await store.create(refund);
    await store.approve(token, 'supervisor-ann');
    expect(await store.consume(token, { ...call, args: { ...refund.args, amount: 600 } })).toBe('mismatch');
    expect(await store.consume(token, { ...call, args: { ...refund.args, extra: true } })).toBe('mismatch');
    expect(await store.consume(token, { ...call, tool: 'delete_user' })).toBe('mismatch');
    expect(await store.consume(token, { ...call, subjectId: 'cust-2' })).toBe('mismatch');
    expect(await store.consume(token, { ...call, policyId: 'other-policy' })).toBe('mismatch');
    // Key order does not matter: the binding is a hash of canonical JSON.
    expect(await store.consume(token, { ...call, args: { reason: 'broken', amount: 60, user_id: 'cust-1' } })).toBe('allowed');
  });

  it('refuses expired tokens, for approving and for consuming', async () => {
    const { store, clock } = setup();
    const early = await store.create(refund);
    const late = await store.create(refund);
    await store.approve(early.token, 'ann');
    clock.now += 900_000;
    expect(await store.consume(early.token, call)).toBe('expired');
    expect(await store.approve(late.token, 'ann')).toBe('expired');
  });

  it('refuses unknown tokens, other tenants and self-approval', async () => {
    const { store } = setup();
    expect(await store.consume('apv_doesnotexist', call)).toBe('unknown');
    expect(await store.approve('apv_doesnotexist', 'ann')).toBe('unknown');
    const { token } = await store.create(refund);
    expect(await store.approve(token, 'ann', { tenant: 'other' })).toBe('unknown');
    expect(await store.approve(token, 'cust-1')).toBe('self-approval');
    await expect(store.approve(token, '  ')).rejects.toThrow(/approver/);
    await store.approve(token, 'ann', { tenant: 'acme' });
    expect(await store.consume(token, { ...call, tenant: 'other' })).toBe('unknown');
    expect(await store.consume(token, call)).toBe('allowed');
  });

  it('rejects with the approver and a reason: the token is refused for good, the reason kept for the model', async () => {
    const { store } = setup();
    const { token } = await store.create(refund);
    expect(await store.reject(token, 'supervisor-ann', { reason: 'not on a Sunday' })).toBe('rejected');
    expect(await store.get(token)).toMatchObject({ status: 'rejected', approver: 'supervisor-ann', reason: 'not on a Sunday' });
    expect(await store.peek(token, call)).toBe('rejected');
    expect(await store.consume(token, call)).toBe('rejected');
    expect(await store.approve(token, 'supervisor-bob')).toBe('rejected');
    expect(await store.reject(token, 'supervisor-bob')).toBe('already-rejected');
    expect((await store.get(token))?.approver).toBe('supervisor-ann');
    // A mismatching call learns nothing of the rejection.
    expect(await store.consume(token, { ...call, subjectId: 'cust-2' })).toBe('mismatch');
  });

  it('a rejection withdraws an approval not used yet; a used or expired token cannot be rejected', async () => {
    const { store, clock } = setup();
    const approvedFirst = await store.create(refund);
    await store.approve(approvedFirst.token, 'ann');
    expect(await store.reject(approvedFirst.token, 'bob', { reason: 'approved by mistake' })).toBe('rejected');
    expect(await store.consume(approvedFirst.token, call)).toBe('rejected');
    const used = await store.create(refund);
    await store.approve(used.token, 'ann');
    expect(await store.consume(used.token, call)).toBe('allowed');
    expect(await store.reject(used.token, 'bob')).toBe('used');
    const late = await store.create(refund);
    clock.now += 900_000;
    expect(await store.reject(late.token, 'bob')).toBe('expired');
    expect((await store.get(late.token))?.status).toBe('expired');
    await expect(store.reject(late.token, 'bob', { reason: 'x'.repeat(1001) })).rejects.toThrow(/reason/);
  });

  it('names a held call by its id (the token\'s sha256), which decides and reads it but is never the token', async () => {
    const { store } = setup();
    const ticket = await store.create({ ...refund, reasons: ['refunds over 50 need approval'], rules: ['tools.issue_refund.approval.over-50'], callId: 'job-1' });
    expect(ticket.id).toBe(approvalTokenHash(ticket.token));
    expect(await store.get(ticket.id)).toMatchObject({
      id: ticket.id,
      status: 'pending',
      reasons: ['refunds over 50 need approval'],
      rules: ['tools.issue_refund.approval.over-50'],
      decisionId: 'job-1',
      expiresAt: ticket.expiresAt,
    });
    expect(await store.approve(ticket.id, 'ann', { tenant: 'acme' })).toBe('approved');
    expect(await store.consume(ticket.id, call)).toBe('unknown');
    expect(await store.consume(ticket.token, call)).toBe('allowed');
    expect(await store.get('not-a-token-or-id')).toBeNull();
    expect(await store.approve(ticket.id.toUpperCase(), 'ann')).toBe('unknown');
  });
});

describe('RedisApprovalStore specifics', () => {
  it('stores only the token hash (the record, its tenant\'s index and its webhook queue entry)', async () => {
    const redis = redisConnection();
    const prefix = uniquePrefix('apv');
    const store = new RedisApprovalStore({ redis, prefix });
    const { token } = await store.create(refund);
    const keys = (await redis.keys(`${prefix}:*`)).sort();
    const id = approvalTokenHash(token);
    expect(keys).toEqual([`${prefix}:acme:approvals`, `${prefix}:approval:${id}`, `${prefix}:webhooks:approvals`].sort());
    const stored = JSON.stringify([
      await redis.hgetall(`${prefix}:approval:${id}`),
      await redis.zrange(`${prefix}:acme:approvals`, '0', '-1'),
      await redis.zrange(`${prefix}:webhooks:approvals`, '0', '-1'),
    ]);
    expect(stored).toContain(id);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(token.slice(4));
  });

  it('lists a tenant\'s open calls oldest first, by status and filters, a page at a time, dropping decided and expired ones', async () => {
    const redis = redisConnection();
    const prefix = uniquePrefix('apv');
    const clock = { now: 1_700_000_000_000 };
    const store = new RedisApprovalStore({ redis, prefix, now: () => clock.now });
    const made: Array<{ token: string; id: string }> = [];
    for (let i = 0; i < 7; i++) {
      // Two calls in the same millisecond, to page through ties.
      if (i % 2 === 1) clock.now += 1000;
      made.push(await store.create({ ...refund, args: { ...refund.args, amount: 60 + i }, subjectId: i < 5 ? 'cust-1' : 'cust-2', tool: i === 6 ? 'delete_user' : refund.tool }));
    }
    await store.create({ ...refund, tenant: 'other' });
    const all = await store.list('acme', { limit: 500 });
    expect(all.next).toBeNull();
    // Oldest first; calls made in the same millisecond in id order.
    const order = all.approvals.map((a) => a.args.amount as number);
    expect([...order].sort()).toEqual([60, 61, 62, 63, 64, 65, 66]);
    const byAge = [...all.approvals].sort((x, y) => x.createdAt.localeCompare(y.createdAt) || x.id.localeCompare(y.id));
    expect(all.approvals).toEqual(byAge);
    expect(all.approvals.every((a) => a.tenant === 'acme' && a.status === 'pending')).toBe(true);

    const pages: number[][] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list('acme', { limit: 2, ...(cursor ? { cursor } : {}) });
      pages.push(page.approvals.map((a) => a.args.amount as number));
      cursor = page.next ?? undefined;
    } while (cursor);
    expect(pages.flat()).toEqual(order);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 2, 1]);

    expect((await store.list('acme', { subject: 'cust-2' })).approvals.map((a) => a.args.amount).sort()).toEqual([65, 66]);
    expect((await store.list('acme', { tool: 'delete_user' })).approvals.map((a) => a.args.amount)).toEqual([66]);
    expect((await store.list('acme', { policy: 'other-policy' })).approvals).toEqual([]);

    await store.approve(made[0]!.id, 'ann');
    await store.reject(made[1]!.id, 'ann', { reason: 'no' });
    expect((await store.list('acme')).approvals.map((a) => a.args.amount)).toEqual(order.filter((amount) => amount > 61));
    expect((await store.list('acme', { status: 'approved' })).approvals.map((a) => a.args.amount)).toEqual([60]);
    // The rejected one has left the index; the approved one stays until it is used.
    expect(await redis.zscore(`${prefix}:acme:approvals`, made[1]!.id)).toBeNull();
    expect(await redis.zscore(`${prefix}:acme:approvals`, made[0]!.id)).not.toBeNull();

    // 899 s after the last two were made, 900 s and more after the five before them: those expired,
    // and leave the listing (and the index), whatever their status.
    clock.now += 899_000;
    const left = await store.list('acme', { limit: 500 });
    expect(left.approvals.map((a) => a.args.amount).sort()).toEqual([65, 66]);
    expect(await redis.zcard(`${prefix}:acme:approvals`)).toBe(2);
  });

  it('single use holds under concurrency: of 20 consumers on 2 connections exactly one is allowed', async () => {
    const prefix = uniquePrefix('apv');
    const a = new RedisApprovalStore({ redis: redisConnection(), prefix });
    const b = new RedisApprovalStore({ redis: redisConnection(), prefix });
    const { token } = await a.create(refund);
    expect(await b.approve(token, 'ann')).toBe('approved');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).consume(token, call)));
    expect(results.filter((r) => r === 'allowed')).toHaveLength(1);
    expect(results.filter((r) => r === 'used')).toHaveLength(19);
  });

  it('expires the Redis key after the token expiry plus the retention time', async () => {
    const redis = redisConnection();
    const prefix = uniquePrefix('apv');
    const store = new RedisApprovalStore({ redis, prefix, retentionSeconds: 60 });
    const { token } = await store.create({ ...refund, ttlSeconds: 30 });
    const ttl = await redis.pttl(`${prefix}:approval:${approvalTokenHash(token)}`);
    expect(ttl).toBeGreaterThan(80_000);
    expect(ttl).toBeLessThanOrEqual(90_000);
  });
});
