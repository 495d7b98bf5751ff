import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { DecisionLog, keys } from '@guardagent/queue';
import type { PolicyInput } from '@guardagent/schemas';
import { startTestStack, waitFor, type TestStack } from '../helpers/pipeline-stack';

/** Denies refunds over `limit`; a supplied program, verified against its examples with no LLM. */
const refunds = (limit: number, extra: Partial<PolicyInput> = {}): PolicyInput => ({
  id: 'refunds',
  version: String(limit),
  requests: `Deny any refund over ${limit}.`,
  mode: 'compiled',
  decisionLog: true,
  program: `return Number(context.amount) > ${limit} ? { deny: true, reasons: ['over ${limit}'] } : { deny: false, reasons: [] };`,
  examples: [
    { input: 'r', context: { amount: limit * 10 }, label: 1 },
    { input: 'r', context: { amount: 1 }, label: 0 },
  ],
  ...extra,
});

describe('shadow mode', () => {
  let stack: TestStack;
  let admin: Redis;
  beforeAll(async () => {
    stack = await startTestStack();
    admin = new Redis(stack.redisUrl);
    expect((await stack.client.compile(refunds(100), { timeoutMs: 60_000 })).status).toBe('promoted');
  });
  afterAll(async () => {
    admin?.disconnect();
    await stack?.stop();
  });

  it('refuses a shadow for a policy id with no enforcing version', async () => {
    await expect(stack.client.putPolicy(refunds(50, { id: 'nothing-here', enforcement: 'shadow' }))).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it("a shadow decides beside the enforcing version: the caller gets the enforcing decision, the shadow's is recorded and counted", async () => {
    // A stricter version in shadow: it is compiled (verified) like any version, and does not replace v100.
    expect((await stack.client.compile(refunds(50, { enforcement: 'shadow' }), { timeoutMs: 60_000 })).status).toBe('promoted');

    const disagree = await stack.client.check({ policy: 'refunds', input: 'r', context: { amount: 80 } });
    expect(disagree).toMatchObject({ decision: 'allow', status: 'ok', policy: { id: 'refunds', version: '100' } });
    expect(disagree.shadow).toMatchObject({ policy: { id: 'refunds', version: '50' }, decision: 'deny', status: 'ok', reasons: ['over 50'], agrees: false });
    const agree = await stack.client.check({ policy: 'refunds', input: 'r', context: { amount: 500 } });
    expect(agree).toMatchObject({ decision: 'deny', reasons: ['over 100'], shadow: { decision: 'deny', reasons: ['over 50'], agrees: true } });
    const agreeAllow = await stack.client.check({ policy: 'refunds', input: 'r', context: { amount: 10 } });
    expect(agreeAllow.shadow).toMatchObject({ decision: 'allow', agrees: true });
    // The stored decision (GET by id) is the one the caller got, shadow included.
    expect(await stack.client.result(disagree.id)).toEqual(disagree);

    const counts = await admin.hgetall(keys(stack.prefix).metricsShadow());
    expect(counts).toEqual({ 'default|refunds|disagree': '1', 'default|refunds|agree': '2' });
    // The decision log keeps what the shadow said.
    let logged: unknown;
    await waitFor(async () => {
      for await (const entry of new DecisionLog(admin, stack.prefix).entries('default')) if (entry.id === disagree.id) logged = entry;
      return logged !== undefined;
    }, 10_000, 'the log entry');
    expect(logged).toMatchObject({ decision: 'allow', shadow: { decision: 'deny', agrees: false } });
  });

  it('putting an enforcing version ends the shadow', async () => {
    await stack.client.putPolicy(refunds(50));
    const after = await stack.client.check({ policy: 'refunds', input: 'r', context: { amount: 80 } });
    expect(after).toMatchObject({ decision: 'deny', policy: { version: '50' } });
    expect(after.shadow).toBeUndefined();
  });

  it('a shadow that cannot decide (compiled, no verified program) fails on its own: the enforcing decision stands', async () => {
    await stack.client.putPolicy(refunds(100));
    await stack.client.putPolicy({ ...refunds(20, { enforcement: 'shadow' }), program: undefined, mode: 'compiled' });
    const decision = await stack.client.check({ policy: 'refunds', input: 'r', context: { amount: 80 } });
    expect(decision).toMatchObject({ decision: 'allow', status: 'ok', shadow: { status: 'guard_error', agrees: false } });
  });
});
