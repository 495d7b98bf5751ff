import { Agent, OpenAIChatCompletionsModel, RunState, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryHeldCalls, type HeldCalls } from '@guardagent/client';
import { QueueTransport } from '@guardagent/client/queue';
import { loadConfig } from '@guardagent/config';
import { createRuntime, type Runtime } from '@guardagent/pipeline';
import { startFakeLlmServer, testRedisUrl, uniquePrefix, type FakeLlmServer } from '@guardagent/testing';
import { applyGuardAgentApprovals, approveInterruption, guardAgentTool, guardInterruptions, rejectInterruption } from '../src/index';
import { silentLogger } from '@guardagent/telemetry';

// Issue 36: a call GuardAgent holds becomes an interruption of the real OpenAI Agents SDK run (its
// human-in-the-loop flow); once a person decides, the resumed run runs it once or tells the model
// why not. The model is the fake OpenAI-compatible server; GuardAgent runs real workers on Redis.
const policy = {
  id: 'agents-approvals',
  specification: 'A support agent issues refunds.',
  toolbox: ['core', 'rails'],
  rails: {
    roles: { support_agent: { tools: ['issue_refund'] } },
    tools: { issue_refund: { requireApproval: [{ id: 'over-50', when: 'args.amount > 50', message: 'refunds over 50 need approval' }] } },
  },
};

interface Session {
  userId: string;
}

let runtime: Runtime;
let transport: QueueTransport;
let llm: FakeLlmServer;

beforeAll(async () => {
  setTracingDisabled(true);
  const config = loadConfig({}, { redisUrl: testRedisUrl(), prefix: uniquePrefix('agents-loop') });
  runtime = await createRuntime(config, { llm: null, logger: silentLogger });
  runtime.startWorkers(['executor']);
  transport = await QueueTransport.connect({ redisUrl: config.redisUrl!, prefix: config.prefix });
  await transport.putPolicy(policy as never);
  llm = await startFakeLlmServer();
});
afterAll(async () => {
  await llm?.close();
  await transport?.close();
  await runtime?.close();
});

const subject = (ctx: { context: Session }) => ({ id: ctx.context.userId, roles: ['support_agent'] });

function supportAgent(heldCalls: HeldCalls, refunds: unknown[]) {
  const issueRefund = guardAgentTool(
    tool({
      name: 'issue_refund',
      description: 'Refund a customer',
      parameters: z.object({ user_id: z.string(), amount: z.number() }),
      execute: async (args) => {
        refunds.push(args);
        return `refunded ${args.amount}`;
      },
    }),
    { transport, policy: 'agents-approvals', subject, heldCalls },
  );
  const model = new OpenAIChatCompletionsModel(new OpenAI({ baseURL: llm.baseURL, apiKey: 'sk-test', maxRetries: 0 }), 'fake-model');
  return new Agent<Session>({ name: 'support', instructions: 'Help the customer.', model, tools: [issueRefund] });
}

/** What the model was sent as tool outputs in its `index`-th request. */
const toolOutputs = (index: number): string =>
  JSON.stringify((llm.requests[index]!.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'tool').map((m) => m.content));
const refund = (amount: number) => ({ toolCalls: [{ name: 'issue_refund', arguments: { user_id: 'u1', amount } }] });

describe('guardAgentTool and the OpenAI Agents SDK approval flow', () => {
  it('held -> approved in GuardAgent -> the resumed run runs it once -> the same call made again is held afresh', async () => {
    const heldCalls = new InMemoryHeldCalls();
    const refunds: unknown[] = [];
    const agent = supportAgent(heldCalls, refunds);
    llm.enqueue(refund(80));
    const first = await run(agent, 'refund me 80', { context: { userId: 'u1' } });
    expect(first.interruptions).toHaveLength(1);
    expect(first.interruptions[0]!.name).toBe('issue_refund');
    expect(refunds).toEqual([]);
    const [held] = await guardInterruptions(first.state, { heldCalls, subject });
    expect(held!.held.reasons).toEqual(['refunds over 50 need approval']);
    // Nobody decided yet: the run stays interrupted.
    expect((await applyGuardAgentApprovals(first.state, { transport, heldCalls, subject })).waiting).toHaveLength(1);

    // A person approves it in GuardAgent (what POST /v1/approvals/{id}/approve does).
    expect(await transport.approve(held!.held.id, 'ops-lead', { reason: 'known customer' })).toBe('approved');
    const applied = await applyGuardAgentApprovals(first.state, { transport, heldCalls, subject });
    expect(applied.approved).toHaveLength(1);

    const resumedAt = llm.requests.length;
    // After the refund the model asks for the very same refund again: a new call, held afresh.
    llm.enqueue(refund(80));
    const second = await run(agent, first.state);
    expect(refunds).toEqual([{ user_id: 'u1', amount: 80 }]);
    expect(toolOutputs(resumedAt)).toContain('refunded 80');
    expect((await transport.approval(held!.held.token))?.status).toBe('used');
    expect(second.interruptions).toHaveLength(1);
    const [again] = await guardInterruptions(second.state, { heldCalls, subject });
    expect(again!.held.token).not.toBe(held!.held.token);
    expect((await transport.approval(again!.held.token))?.status).toBe('pending');
    expect(refunds).toHaveLength(1);
  });

  it('held -> rejected in GuardAgent -> the model reads the refusal with who rejected it and why', async () => {
    const heldCalls = new InMemoryHeldCalls();
    const refunds: unknown[] = [];
    const agent = supportAgent(heldCalls, refunds);
    llm.enqueue(refund(90));
    const first = await run(agent, 'refund me 90', { context: { userId: 'u1' } });
    const [held] = await guardInterruptions(first.state, { heldCalls, subject });
    expect(await transport.reject(held!.held.id, 'ops-lead', { reason: 'refunded twice already' })).toBe('rejected');
    expect((await applyGuardAgentApprovals(first.state, { transport, heldCalls, subject })).rejected).toHaveLength(1);
    const resumedAt = llm.requests.length;
    llm.enqueue({ content: 'Sorry, the refund was refused.' });
    const second = await run(agent, first.state);
    expect(second.finalOutput).toBe('Sorry, the refund was refused.');
    expect(refunds).toEqual([]);
    expect(toolOutputs(resumedAt)).toContain("the call to 'issue_refund' was rejected by ops-lead: refunded twice already");
  });

  it("through the SDK's own flow: the approval is recorded in GuardAgent under the approver's name and the call runs once; an SDK-only approval runs nothing", async () => {
    const heldCalls = new InMemoryHeldCalls();
    const refunds: unknown[] = [];
    const agent = supportAgent(heldCalls, refunds);

    // state.approve alone (GuardAgent not told): the resumed call is still held, and the model reads so.
    llm.enqueue(refund(70));
    const skipped = await run(agent, 'refund me 70', { context: { userId: 'u1' } });
    skipped.state.approve(skipped.interruptions[0]!);
    const resumedAt = llm.requests.length;
    llm.enqueue({ content: 'Still waiting for approval.' });
    await run(agent, skipped.state);
    expect(refunds).toEqual([]);
    expect(toolOutputs(resumedAt)).toContain("GuardAgent still holds the call to 'issue_refund'");

    llm.enqueue(refund(75));
    const first = await run(agent, 'refund me 75', { context: { userId: 'u1' } });
    const item = first.interruptions[0]!;
    await expect(approveInterruption(first.state, item, { approvals: transport, approver: 'u1', heldCalls, subject })).rejects.toThrow(/self-approval/);
    await approveInterruption(first.state, item, { approvals: transport, approver: 'ops-lead', reason: 'fine', heldCalls, subject });
    const [held] = await guardInterruptions(first.state, { heldCalls, subject });
    expect(await transport.approval(held!.held.id)).toMatchObject({ status: 'approved', approver: 'ops-lead', reason: 'fine' });
    llm.enqueue({ content: 'Refunded 75.' });
    const second = await run(agent, first.state);
    expect(second.finalOutput).toBe('Refunded 75.');
    expect(refunds).toEqual([{ user_id: 'u1', amount: 75 }]);

    llm.enqueue(refund(76));
    const third = await run(agent, 'refund me 76', { context: { userId: 'u1' } });
    const [toReject] = await guardInterruptions(third.state, { heldCalls, subject });
    await rejectInterruption(third.state, third.interruptions[0]!, { approvals: transport, approver: 'ops-lead', reason: 'over the monthly limit', heldCalls, subject });
    expect((await transport.approval(toReject!.held.id))?.status).toBe('rejected');
    const rejectedAt = llm.requests.length;
    llm.enqueue({ content: 'Refused.' });
    await run(agent, third.state);
    expect(refunds).toHaveLength(1);
    expect(toolOutputs(rejectedAt)).toContain('rejected by ops-lead: over the monthly limit');
  });

  it('resumes in another process: the run state serialised, the held calls in Redis', async () => {
    const refunds: unknown[] = [];
    llm.enqueue(refund(85));
    const first = await run(supportAgent(transport.heldCalls(), refunds), 'refund me 85', { context: { userId: 'u1' } });
    const saved = first.state.toString();
    const [held] = await guardInterruptions(first.state, { heldCalls: transport.heldCalls(), subject });
    await transport.approve(held!.held.id, 'ops-lead');

    // A new agent, new guarded tools, a new state object: only Redis and the saved state carry over.
    const elsewhere = supportAgent(transport.heldCalls(), refunds);
    const state = await RunState.fromString<Session, typeof elsewhere>(elsewhere, saved);
    expect((await applyGuardAgentApprovals(state, { transport, heldCalls: transport.heldCalls(), subject })).approved).toHaveLength(1);
    llm.enqueue({ content: 'Refunded 85.' });
    const resumed = await run(elsewhere, state);
    expect(resumed.finalOutput).toBe('Refunded 85.');
    expect(refunds).toEqual([{ user_id: 'u1', amount: 85 }]);
  });

  it('a call GuardAgent allows or denies needs no approval: it runs, or the model reads why not, with one check each', async () => {
    const heldCalls = new InMemoryHeldCalls();
    const refunds: unknown[] = [];
    const agent = supportAgent(heldCalls, refunds);
    const before = (await runtime.redis.hgetall(`${transport.prefix}:metrics:decisions`)) as Record<string, string>;
    llm.enqueue(refund(20), { content: 'Refunded 20.' });
    const small = await run(agent, 'refund me 20', { context: { userId: 'u1' } });
    expect(small.interruptions ?? []).toEqual([]);
    expect(small.finalOutput).toBe('Refunded 20.');
    expect(refunds).toEqual([{ user_id: 'u1', amount: 20 }]);
    const after = (await runtime.redis.hgetall(`${transport.prefix}:metrics:decisions`)) as Record<string, string>;
    const allowed = (counts: Record<string, string>) => Number(counts['default|agents-approvals|allow|ok'] ?? 0);
    // needsApproval asked GuardAgent; the guardrail reused that decision instead of asking again.
    expect(allowed(after) - allowed(before)).toBe(1);
  });
});
