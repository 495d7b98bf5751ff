import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { QueueTransport } from '@guardagent/client/queue';
import { DecisionLog, ResultStore } from '@guardagent/queue';
import { parsePolicyText, type Decision, type DecisionLogEntry, type PolicyInput } from '@guardagent/schemas';
import { startFakeLlmServer, testDecision, testRedisUrl, uniquePrefix, type FakeLlmServer } from '@guardagent/testing';
import { refundsPolicy } from '../helpers/refunds-policy';
import { REPO_ROOT, startTestStack, testLlm, waitFor, type TestStack } from '../helpers/pipeline-stack';

const refundDesk = { ...parsePolicyText(readFileSync(join(REPO_ROOT, 'examples/policies/refund-desk.yaml'), 'utf8')), decisionLog: true };
const agent = { id: 'u-1', roles: ['support_agent'], attributes: { email: 'ann@example.com' } };
const refunds: PolicyInput = { ...refundsPolicy, decisionLog: true };
const hotelAge: PolicyInput = { id: 'hotel-age', requests: 'Users under 18 cannot book a hotel.', mode: 'per-request', decisionLog: true };
const unrecorded: PolicyInput = { ...refunds, id: 'unrecorded', decisionLog: undefined };

describe('the decision log', () => {
  let llm: FakeLlmServer;
  let stack: TestStack;
  let log: DecisionLog;
  let admin: Redis;
  const entries = async (tenant = 'default'): Promise<DecisionLogEntry[]> => {
    const all: DecisionLogEntry[] = [];
    for await (const entry of log.entries(tenant, { pageSize: 2 })) all.push(entry);
    return all;
  };
  const entryOf = async (decision: Decision): Promise<DecisionLogEntry> => {
    let found: DecisionLogEntry | undefined;
    await waitFor(
      async () => {
        found = (await entries()).find((e) => e.id === decision.id);
        return found !== undefined;
      },
      10_000,
      `log entry of ${decision.id}`,
    );
    return found!;
  };

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    stack = await startTestStack({ llm: testLlm(llm.baseURL) });
    admin = new Redis(stack.redisUrl);
    log = new DecisionLog(admin, stack.prefix);
    await stack.client.putPolicy(refundDesk);
    await stack.client.putPolicy(hotelAge);
    expect((await stack.client.compile(refunds, { timeoutMs: 60_000 })).status).toBe('promoted');
    expect((await stack.client.compile(unrecorded, { timeoutMs: 60_000 })).status).toBe('promoted');
  });
  afterAll(async () => {
    admin?.disconnect();
    await stack?.stop();
    await llm?.close();
  });

  it('records a compiled decision with the policy and program digests that decided it', async () => {
    const decision = await stack.client.check({ policy: 'refunds', input: 'refund please', context: { amount: 500, ticket: 'T-1' } });
    const entry = await entryOf(decision);
    expect(entry).toMatchObject({
      id: decision.id,
      policy: decision.policy,
      decision: 'deny',
      status: 'ok',
      layer: 'guardagent',
      mode: 'compiled',
      reasons: ['over 100'],
      job: { input: 'refund please', output: '', context: { amount: 500, ticket: 'T-1' } },
    });
    expect(entry.policy.programDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(entry.timings.total).toBeGreaterThanOrEqual(0);
  });

  it('records rails decisions as the guard saw them: never an approval token, never the card number the rails redacted', async () => {
    const pending = await stack.client.check({ policy: 'refund-desk', subject: agent, action: { kind: 'tool_call', tool: 'issue_refund', args: { user_id: 'u-1', amount: 80, reason: 'broken' } } });
    expect(pending.decision).toBe('pending');
    const token = pending.approval!.token;
    const retried = await stack.client.check({
      policy: 'refund-desk',
      subject: agent,
      action: { kind: 'tool_call', tool: 'issue_refund', args: { user_id: 'u-1', amount: 80, reason: 'broken' } },
      context: { approvalToken: token, channel: 'chat' },
    });
    const card = await stack.client.check({
      policy: 'refund-desk',
      subject: agent,
      action: { kind: 'message', role: 'assistant', text: 'Your card 4111 1111 1111 1111 was refunded.' },
    });
    expect(card.redacted?.output).toContain('[REDACTED:card]');
    const [pendingEntry, retriedEntry, cardEntry] = [await entryOf(pending), await entryOf(retried), await entryOf(card)];
    expect(pendingEntry).toMatchObject({ decision: 'pending', layer: 'rails', rules: pending.rules });
    expect(retriedEntry.job?.context).toEqual({ channel: 'chat' });
    expect(cardEntry.job?.action).toMatchObject({ kind: 'message', text: expect.stringContaining('[REDACTED:card]') });
    const everything = JSON.stringify(await entries());
    expect(everything).not.toContain(token);
    expect(everything).not.toContain('4111 1111 1111 1111');
  });

  it('records a per-request decision, and nothing of a policy that did not ask', async () => {
    llm.enqueue(
      { content: '1. Key points: age >= 18.\n2. Applies.\n3. Output books.\n4. Compare.' },
      { content: "```javascript\nreturn /age: 1\\d/.test(input) ? { deny: true, reasons: ['under 18'] } : { deny: false, reasons: [] };\n```" },
    );
    const perRequest = await stack.client.check({ policy: 'hotel-age', input: 'Task: book a hotel\nage: 15', output: 'ACTION: CLICK Book' }, { timeoutMs: 30_000 });
    expect(perRequest).toMatchObject({ decision: 'deny', mode: 'per-request' });
    expect(await entryOf(perRequest)).toMatchObject({ mode: 'per-request', job: { input: 'Task: book a hotel\nage: 15', output: 'ACTION: CLICK Book' }, reasons: ['under 18'] });

    const skipped = await stack.client.check({ policy: 'unrecorded', input: 'r', context: { amount: 1 } });
    const marker = await stack.client.check({ policy: 'refunds', input: 'after', context: { amount: 1 } });
    await entryOf(marker);
    expect((await entries()).some((e) => e.id === skipped.id)).toBe(false);
    // Filtering by policy reads only that policy's entries.
    const perPolicy: DecisionLogEntry[] = [];
    for await (const entry of log.entries('default', { policyId: 'hotel-age' })) perPolicy.push(entry);
    expect(perPolicy.map((e) => e.id)).toEqual([perRequest.id]);
  });

  describe('PII, whatever the policy says (issue 32, finding 2)', () => {
    const CARD = '4111 1111 1111 1111';
    const SSN = '078-05-1120';
    const SECRET = `sk_live_${'a1B2c3D4'.repeat(3)}`;
    // No PII filter at all: the rails redact nothing, the log still must.
    const unfiltered: PolicyInput = { id: 'unfiltered', toolbox: ['core', 'rails'], decisionLog: true, rails: { roles: { writer: { tools: ['send_email'] } } } } as PolicyInput;
    /** Every digit run of four and more of the card, the SSN's digits, the secret: none may be stored. */
    const leaked = (text: string) => ['4111', '1111 1111', '4111111111111111', '078-05-1120', '078051120', SECRET, 'sk_live'].filter((needle) => text.includes(needle));
    const rawEntries = async (): Promise<string> => JSON.stringify(await admin.xrange(`${stack.prefix}:default:decision-log`, '-', '+'));

    beforeAll(async () => {
      await stack.client.putPolicy(unfiltered);
    });

    it('redacts cards, SSNs and secret keys in the input, output, tool arguments, subject attributes and context; the stored stream holds none', async () => {
      const decision = await stack.client.check({
        policy: 'unfiltered',
        input: `my card is ${CARD}`,
        output: { note: `ssn ${SSN}` },
        subject: { id: 'u-9', roles: ['writer'], attributes: { email: 'ann@example.com', ssn: '078051120', card: CARD, cards: [4111111111111111] } },
        context: { ticket: `key ${SECRET}`, [CARD]: 'a key that is a card', nested: { deep: [`ssn: ${SSN}`] } },
        action: { kind: 'tool_call', tool: 'send_email', args: { to: 'x@example.com', body: `card ${CARD}, ssn ${SSN}, key ${SECRET}`, list: [{ card: 4111111111111111 }] } },
      });
      expect(decision).toMatchObject({ decision: 'allow', rules: [] });
      expect(decision.redacted).toBeUndefined();
      const entry = await entryOf(decision);
      expect(entry.job).toEqual({
        input: 'my card is [REDACTED:card]',
        output: { note: 'ssn [REDACTED:ssn]' },
        subject: { id: 'u-9', roles: ['writer'], attributes: { email: '[REDACTED:email]', ssn: '[REDACTED:ssn]', card: '[REDACTED:card]', cards: ['[REDACTED:card]'] } },
        context: { ticket: 'key [REDACTED:secret]', '[REDACTED:card]': 'a key that is a card', nested: { deep: ['ssn: [REDACTED:ssn]'] } },
        action: { kind: 'tool_call', tool: 'send_email', args: { to: '[REDACTED:email]', body: 'card [REDACTED:card], ssn [REDACTED:ssn], key [REDACTED:secret]', list: [{ card: '[REDACTED:card]' }] } },
      });
      expect(leaked(await rawEntries())).toEqual([]);
    });

    it('a job heavier than the inline limit is redacted off the event loop, the same way', async () => {
      // 56,000 characters each: over the inline limit, under the entry's 200,000.
      const filler = 'the parcel arrived, thanks. '.repeat(2000);
      const decision = await stack.client.check({
        policy: 'unfiltered',
        input: `${filler}card ${CARD}`,
        subject: { id: 'u-9', roles: ['writer'], attributes: { ssn: SSN } },
        action: { kind: 'tool_call', tool: 'send_email', args: { to: 'team', body: `${filler}key ${SECRET}` } },
      });
      const entry = await entryOf(decision);
      expect(entry.jobOmitted).toBeUndefined();
      expect((entry.job!.input as string).endsWith('card [REDACTED:card]')).toBe(true);
      expect((entry.job!.action as unknown as { args: { body: string } }).args.body.endsWith('key [REDACTED:secret]')).toBe(true);
      expect(entry.job?.subject?.attributes).toEqual({ ssn: '[REDACTED:ssn]' });
      expect(leaked(await rawEntries())).toEqual([]);
    });

    it('reasons naming PII (a guard program quoting it) are redacted too', async () => {
      const decision = await stack.client.check({ policy: 'refund-desk', subject: agent, action: { kind: 'tool_call', tool: 'send_email', args: { to: 'ann@example.com', subject: 'x', body: `card ${CARD}` } } });
      // The desk redacts the card from the arguments the tool runs with, and the log records those.
      expect(decision.redacted?.args).toMatchObject({ body: 'card [REDACTED:card]' });
      const entry = await entryOf(decision);
      expect((entry.job!.action as unknown as { args: { body: string; to: string } }).args).toMatchObject({ body: 'card [REDACTED:card]', to: '[REDACTED:email]' });
      expect(entry.job?.subject?.attributes).toEqual({ email: '[REDACTED:email]' });
      expect(leaked(await rawEntries())).toEqual([]);
    });
  });

  it("keeps each tenant's log its own", async () => {
    const other = await QueueTransport.connect({ redisUrl: stack.redisUrl, prefix: stack.prefix, tenant: 'other' });
    try {
      expect((await other.compile(refunds, { timeoutMs: 60_000 })).status).toBe('promoted');
      const theirs = await other.check({ policy: 'refunds', input: 'theirs', context: { amount: 3 } });
      let otherEntries: DecisionLogEntry[] = [];
      await waitFor(
        async () => {
          otherEntries = await entries('other');
          return otherEntries.length > 0;
        },
        10_000,
        "the other tenant's entry",
      );
      expect(otherEntries.map((e) => e.id)).toEqual([theirs.id]);
      expect((await entries('default')).some((e) => e.id === theirs.id)).toBe(false);
    } finally {
      await other.close();
    }
  });
});

describe('decision log retention', () => {
  const decision = (id: string): Decision => testDecision(id, { decision: 'allow', policy: { id: 'p', version: '1', digest: 'd' } });

  const entry = (id: string) =>
    JSON.stringify({ id, at: new Date().toISOString(), policy: { id: 'p', version: '1', digest: 'd' }, job: { input: id, output: '', context: {} }, decision: 'allow', status: 'ok', layer: 'rails', mode: null, reasons: [], rules: [], timings: {} });

  it('keeps at most maxEntries entries, the newest', async () => {
    const redis = new Redis(testRedisUrl());
    const prefix = uniquePrefix('log-size');
    try {
      const store = new ResultStore(redis, prefix, 60, { maxEntries: 3, maxAgeSeconds: 3600 });
      for (let i = 0; i < 7; i++) await store.saveDecisions([{ decision: decision(`d${i}`), tenant: 't', replyTo: null, batchId: null, logEntry: entry(`d${i}`) }]);
      const ids: string[] = [];
      for await (const e of new DecisionLog(redis, prefix).entries('t')) ids.push(e.id);
      expect(ids).toEqual(['d4', 'd5', 'd6']);
      // A decision stored twice (a re-run) is recorded once.
      await store.saveDecisions([{ decision: decision('d6'), tenant: 't', replyTo: null, batchId: null, logEntry: entry('d6') }]);
      expect(await new DecisionLog(redis, prefix).size('t')).toBe(3);
    } finally {
      redis.disconnect();
    }
  });

  it('drops entries older than maxAgeSeconds when the log is next written', async () => {
    const redis = new Redis(testRedisUrl());
    const prefix = uniquePrefix('log-age');
    try {
      const store = new ResultStore(redis, prefix, 60, { maxEntries: 1000, maxAgeSeconds: 1 });
      const writtenAt = Date.now();
      for (const id of ['old1', 'old2']) await store.saveDecisions([{ decision: decision(id), tenant: 't', replyTo: null, batchId: null, logEntry: entry(id) }]);
      // The retention is by age: the condition is the clock passing it.
      await waitFor(async () => Date.now() > writtenAt + 1200, 5000, 'the old entries to pass the age cap');
      await store.saveDecisions([{ decision: decision('new'), tenant: 't', replyTo: null, batchId: null, logEntry: entry('new') }]);
      const ids: string[] = [];
      for await (const e of new DecisionLog(redis, prefix).entries('t')) ids.push(e.id);
      expect(ids).toEqual(['new']);
    } finally {
      redis.disconnect();
    }
  });
});
