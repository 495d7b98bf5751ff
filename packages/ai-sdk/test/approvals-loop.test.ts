import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, tool, type ModelMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryHeldCalls, type HeldCalls } from '@guardagent/client';
import { QueueTransport } from '@guardagent/client/queue';
import { loadConfig } from '@guardagent/config';
import { createRuntime, type Runtime } from '@guardagent/pipeline';
import { startFakeLlmServer, testRedisUrl, uniquePrefix, type FakeLlmServer } from '@guardagent/testing';
import { guardAgentApprovalResponses, guardApprovalRequests, guardTools, respondToApproval } from '../src/index';
import { silentLogger } from '@guardagent/telemetry';

// Issue 36: a call GuardAgent holds becomes an AI SDK 6 tool approval request; once a person
// decides, the resumed generation runs it once or hands the model the refusal. The real AI SDK
// (generateText) against the fake OpenAI-compatible server; GuardAgent runs real workers on Redis.
const policy = {
  id: 'ai-approvals',
  specification: 'A support agent issues refunds.',
  toolbox: ['core', 'rails'],
  rails: {
    roles: { support_agent: { tools: ['issueRefund'] } },
    tools: { issueRefund: { requireApproval: [{ id: 'over-50', when: 'args.amount > 50', message: 'refunds over 50 need approval' }] } },
  },
};
const subject = { id: 'u1', roles: ['support_agent'] };

let runtime: Runtime;
let transport: QueueTransport;
let llm: FakeLlmServer;

beforeAll(async () => {
  const config = loadConfig({}, { redisUrl: testRedisUrl(), prefix: uniquePrefix('aisdk-loop') });
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

const model = () => createOpenAICompatible({ name: 'fake', baseURL: llm.baseURL, apiKey: 'sk-test' }).chatModel('fake-model');
const refund = (amount: number) => ({ toolCalls: [{ name: 'issueRefund', arguments: { userId: 'u1', amount } }] });
const toolMessages = (index: number): string =>
  JSON.stringify((llm.requests[index]!.body.messages as { role: string }[]).filter((m) => m.role === 'tool'));

function refundTools(heldCalls: HeldCalls, refunds: unknown[]) {
  return guardTools(
    {
      issueRefund: tool({
        description: 'Refund a customer',
        inputSchema: z.object({ userId: z.string(), amount: z.number() }),
        execute: async (args) => {
          refunds.push(args);
          return { refunded: args.amount };
        },
      }),
    },
    { transport, policy: 'ai-approvals', subject, heldCalls },
  );
}

/** One generation: the conversation so far in, the result out (stops at a tool approval request). */
async function turn(tools: ReturnType<typeof refundTools>, messages: ModelMessage[]) {
  const result = await generateText({ model: model(), tools, stopWhen: stepCountIs(4), messages });
  messages.push(...result.response.messages);
  return result;
}

describe('guardTools and AI SDK 6 tool approval', () => {
  it('held -> approved in GuardAgent -> the resumed generation runs it once -> the same call made again is held afresh', async () => {
    const heldCalls = new InMemoryHeldCalls();
    const refunds: unknown[] = [];
    const tools = refundTools(heldCalls, refunds);
    const messages: ModelMessage[] = [{ role: 'user', content: 'refund me 80' }];
    llm.enqueue(refund(80));
    const first = await turn(tools, messages);
    const [held] = await guardApprovalRequests(first.content, { heldCalls, subject });
    expect(held!.request.toolCall).toMatchObject({ toolName: 'issueRefund', input: { userId: 'u1', amount: 80 } });
    expect(held!.held.reasons).toEqual(['refunds over 50 need approval']);
    expect(refunds).toEqual([]);
    // Nobody decided yet: no response to give.
    expect((await guardAgentApprovalResponses(first.content, { transport, heldCalls, subject })).waiting).toHaveLength(1);

    // A person approves it in GuardAgent (what POST /v1/approvals/{id}/approve does).
    expect(await transport.approve(held!.held.id, 'ops-lead')).toBe('approved');
    const { responses, waiting } = await guardAgentApprovalResponses(first.content, { transport, heldCalls, subject });
    expect(waiting).toEqual([]);
    expect(responses).toEqual([{ type: 'tool-approval-response', approvalId: held!.request.approvalId, approved: true }]);
    messages.push({ role: 'tool', content: responses });

    // The model, told the refund went through, asks for the very same refund again: held afresh.
    const resumedAt = llm.requests.length;
    llm.enqueue(refund(80));
    const second = await turn(tools, messages);
    expect(refunds).toEqual([{ userId: 'u1', amount: 80 }]);
    expect(toolMessages(resumedAt)).toContain('refunded');
    expect((await transport.approval(held!.held.token))?.status).toBe('used');
    const [again] = await guardApprovalRequests(second.content, { heldCalls, subject });
    expect(again!.held.token).not.toBe(held!.held.token);
    expect((await transport.approval(again!.held.id))?.status).toBe('pending');
    expect(refunds).toHaveLength(1);
  });

  it('held -> rejected in GuardAgent -> the model reads the refusal with who rejected it and why', async () => {
    const heldCalls = new InMemoryHeldCalls();
    const refunds: unknown[] = [];
    const tools = refundTools(heldCalls, refunds);
    const messages: ModelMessage[] = [{ role: 'user', content: 'refund me 90' }];
    llm.enqueue(refund(90));
    const first = await turn(tools, messages);
    const [held] = await guardApprovalRequests(first.content, { heldCalls, subject });
    await transport.reject(held!.held.id, 'ops-lead', { reason: 'refunded twice already' });
    const { responses } = await guardAgentApprovalResponses(first.content, { transport, heldCalls, subject });
    expect(responses).toMatchObject([{ approved: false, reason: "GuardAgent: the call to 'issueRefund' was rejected by ops-lead: refunded twice already" }]);
    messages.push({ role: 'tool', content: responses });
    const resumedAt = llm.requests.length;
    llm.enqueue({ content: 'Sorry, the refund was refused.' });
    const second = await turn(tools, messages);
    expect(second.text).toBe('Sorry, the refund was refused.');
    expect(refunds).toEqual([]);
    expect(toolMessages(resumedAt)).toContain('rejected by ops-lead: refunded twice already');

    // Answered "approved" in the SDK all the same: GuardAgent refuses it, and the model reads why.
    llm.enqueue(refund(91));
    const third = await turn(tools, messages);
    const [next] = await guardApprovalRequests(third.content, { heldCalls, subject });
    await transport.reject(next!.held.id, 'ops-lead', { reason: 'no more refunds this month' });
    messages.push({ role: 'tool', content: [{ type: 'tool-approval-response', approvalId: next!.request.approvalId, approved: true }] });
    const overruledAt = llm.requests.length;
    llm.enqueue({ content: 'It was refused.' });
    await turn(tools, messages);
    expect(refunds).toEqual([]);
    expect(toolMessages(overruledAt)).toContain('the approval was rejected by ops-lead: no more refunds this month');
  });

  it("through the SDK's own flow: recorded in GuardAgent under the approver's name, then the call runs once; an SDK-only approval runs nothing", async () => {
    const heldCalls = new InMemoryHeldCalls();
    const refunds: unknown[] = [];
    const tools = refundTools(heldCalls, refunds);
    const messages: ModelMessage[] = [{ role: 'user', content: 'refund me 70' }];

    llm.enqueue(refund(70));
    const skipped = await turn(tools, messages);
    const [unrelayed] = await guardApprovalRequests(skipped.content, { heldCalls, subject });
    // approved: true appended by hand, GuardAgent not told: the call stays held and does not run.
    messages.push({ role: 'tool', content: [{ type: 'tool-approval-response', approvalId: unrelayed!.request.approvalId, approved: true }] });
    const skippedAt = llm.requests.length;
    llm.enqueue({ content: 'Still waiting.' });
    await turn(tools, messages);
    expect(refunds).toEqual([]);
    expect(toolMessages(skippedAt)).toContain("GuardAgent held the call to 'issueRefund' for approval");

    llm.enqueue(refund(75));
    const first = await turn(tools, messages);
    const [held] = await guardApprovalRequests(first.content, { heldCalls, subject });
    await expect(respondToApproval(held!.request, { approved: true, approvals: transport, approver: 'u1', heldCalls, subject })).rejects.toThrow(/self-approval/);
    const response = await respondToApproval(held!.request, { approved: true, approvals: transport, approver: 'ops-lead', reason: 'fine', heldCalls, subject });
    expect(await transport.approval(held!.held.id)).toMatchObject({ status: 'approved', approver: 'ops-lead', reason: 'fine' });
    messages.push({ role: 'tool', content: [response] });
    llm.enqueue({ content: 'Refunded 75.' });
    const second = await turn(tools, messages);
    expect(second.text).toBe('Refunded 75.');
    expect(refunds).toEqual([{ userId: 'u1', amount: 75 }]);

    llm.enqueue(refund(76));
    const third = await turn(tools, messages);
    const [toReject] = await guardApprovalRequests(third.content, { heldCalls, subject });
    const denial = await respondToApproval(toReject!.request, { approved: false, approvals: transport, approver: 'ops-lead', reason: 'over the monthly limit', heldCalls, subject });
    expect((await transport.approval(toReject!.held.id))?.status).toBe('rejected');
    messages.push({ role: 'tool', content: [denial] });
    const deniedAt = llm.requests.length;
    llm.enqueue({ content: 'Refused.' });
    await turn(tools, messages);
    expect(refunds).toHaveLength(1);
    expect(toolMessages(deniedAt)).toContain('rejected by ops-lead: over the monthly limit');
  });

  it('a call approved in GuardAgent and made afresh (a new generation) runs once without another approval request', async () => {
    const refunds: unknown[] = [];
    llm.enqueue(refund(88));
    const first = await turn(refundTools(transport.heldCalls(), refunds), [{ role: 'user', content: 'refund me 88' }]);
    const [held] = await guardApprovalRequests(first.content, { heldCalls: transport.heldCalls(), subject });
    await transport.approve(held!.held.id, 'ops-lead');
    // Another process, another conversation: the model makes the same call; the token is in Redis.
    llm.enqueue(refund(88), { content: 'Refunded 88.' });
    const again = await turn(refundTools(transport.heldCalls(), refunds), [{ role: 'user', content: 'please refund me 88 now' }]);
    expect(again.text).toBe('Refunded 88.');
    expect(again.content.filter((part) => part.type === 'tool-approval-request')).toEqual([]);
    expect(refunds).toEqual([{ userId: 'u1', amount: 88 }]);
  });

  it('a call GuardAgent allows needs no approval and is checked once', async () => {
    const refunds: unknown[] = [];
    const counts = async () => Number((await runtime.redis.hget(`${transport.prefix}:metrics:decisions`, 'default|ai-approvals|allow|ok')) ?? 0);
    const before = await counts();
    llm.enqueue(refund(20), { content: 'Refunded 20.' });
    const result = await turn(refundTools(new InMemoryHeldCalls(), refunds), [{ role: 'user', content: 'refund me 20' }]);
    expect(result.text).toBe('Refunded 20.');
    expect(refunds).toEqual([{ userId: 'u1', amount: 20 }]);
    expect((await counts()) - before).toBe(1);
  });
});
