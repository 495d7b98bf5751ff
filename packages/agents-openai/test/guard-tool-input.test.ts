import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool, type FunctionTool } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { QueueTransport } from '@guardagent/client/queue';
import { loadConfig } from '@guardagent/config';
import { createRuntime, type Runtime } from '@guardagent/pipeline';
import { startFakeLlmServer, testRedisUrl, uniquePrefix, type FakeLlmServer } from '@guardagent/testing';
import { guardAgentTool, guardAgentToolInput } from '../src/index';
import { silentLogger } from '@guardagent/telemetry';

// The real OpenAI Agents SDK runs its tool loop against the fake OpenAI-compatible server, which
// scripts the model's tool calls; GuardAgent (real workers, real Redis) decides each call.
const policy = {
  id: 'agents-desk',
  specification: 'A support agent reads accounts.',
  toolbox: ['core', 'rails'],
  rails: {
    roles: { support_agent: { tools: ['read_account', 'send_email'] } },
    tools: { read_account: { authorize: [{ id: 'own-account', when: 'args.user_id == subject.id', message: "only the session user's account" }] } },
    input: { pii: { kinds: ['card'], action: 'redact' } },
  },
};

let runtime: Runtime;
let transport: QueueTransport;
let llm: FakeLlmServer;

beforeAll(async () => {
  setTracingDisabled(true);
  const config = loadConfig({}, { redisUrl: testRedisUrl(), prefix: uniquePrefix('agents') });
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

function agentWith(calls: unknown[]) {
  const readAccount = tool({
    name: 'read_account',
    description: "Read a customer's account",
    parameters: z.object({ user_id: z.string() }),
    inputGuardrails: [guardAgentToolInput<{ userId: string }>({ transport, policy: 'agents-desk', subject: (ctx) => ({ id: ctx.context.userId, roles: ['support_agent'] }) })],
    execute: async (args) => {
      calls.push(args);
      return 'balance: 42';
    },
  });
  const model = new OpenAIChatCompletionsModel(new OpenAI({ baseURL: llm.baseURL, apiKey: 'sk-test', maxRetries: 0 }), 'fake-model');
  return new Agent({ name: 'support', instructions: 'Help the customer.', model, tools: [readAccount] });
}

const toolMessages = (index: number): string[] =>
  (llm.requests[index].body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'tool').map((m) => JSON.stringify(m.content));

describe('guardAgentToolInput with the OpenAI Agents SDK', () => {
  it('lets an allowed call run and the model read its output', async () => {
    const calls: unknown[] = [];
    const first = llm.requests.length;
    llm.enqueue({ toolCalls: [{ name: 'read_account', arguments: { user_id: 'u1' } }] }, { content: 'Your balance is 42.' });
    const result = await run(agentWith(calls), 'what is my balance?', { context: { userId: 'u1' } });
    expect(result.finalOutput).toBe('Your balance is 42.');
    expect(calls).toEqual([{ user_id: 'u1' }]);
    expect(toolMessages(first + 1).join()).toContain('balance: 42');
  });

  it('refuses a denied call: the tool does not run and the model reads the reasons', async () => {
    const calls: unknown[] = [];
    const first = llm.requests.length;
    llm.enqueue({ toolCalls: [{ name: 'read_account', arguments: { user_id: 'someone-else' } }] }, { content: 'I cannot read that account.' });
    const result = await run(agentWith(calls), "show me someone else's balance", { context: { userId: 'u1' } });
    expect(result.finalOutput).toBe('I cannot read that account.');
    expect(calls).toEqual([]);
    const seen = toolMessages(first + 1).join();
    expect(seen).toContain("GuardAgent denied the call to 'read_account'");
    expect(seen).toContain("only the session user's account");
  });
});

describe('PII in tool-call arguments with the OpenAI Agents SDK (issue 32)', () => {
  const CARD = '4111 1111 1111 1111';
  const sendEmailWith = (sent: unknown[]) =>
    tool({
      name: 'send_email',
      description: 'Email the customer',
      parameters: z.object({ to: z.string(), body: z.string() }),
      execute: async (args) => {
        sent.push(args);
        return 'sent';
      },
    });
  const options = { transport: undefined as unknown as QueueTransport, policy: 'agents-desk', subject: (ctx: { context: { userId: string } }) => ({ id: ctx.context.userId, roles: ['support_agent'] }) };
  // biome-ignore lint/suspicious/noExplicitAny: any tool, whatever its types
  const agentWithTool = (emailTool: FunctionTool<any, any, any>) => {
    const model = new OpenAIChatCompletionsModel(new OpenAI({ baseURL: llm.baseURL, apiKey: 'sk-test', maxRetries: 0 }), 'fake-model');
    return new Agent<{ userId: string }>({ name: 'support', instructions: 'Help the customer.', model, tools: [emailTool] });
  };

  it('guardAgentTool runs an allowed call with the redacted arguments, never the model\'s own', async () => {
    const sent: unknown[] = [];
    const guarded = guardAgentTool(sendEmailWith(sent), { ...options, transport });
    llm.enqueue({ toolCalls: [{ name: 'send_email', arguments: { to: 'u1@example.com', body: `card ${CARD} refunded` } }] }, { content: 'Sent.' });
    const result = await run(agentWithTool(guarded), 'email me', { context: { userId: 'u1' } });
    expect(result.finalOutput).toBe('Sent.');
    expect(sent).toEqual([{ to: 'u1@example.com', body: 'card [REDACTED:card] refunded' }]);
  });

  it('guardAgentTool runs a call without PII with its own arguments, and does not run a denied one', async () => {
    const sent: unknown[] = [];
    const guarded = guardAgentTool(sendEmailWith(sent), { ...options, transport });
    llm.enqueue({ toolCalls: [{ name: 'send_email', arguments: { to: 'u1@example.com', body: 'refunded' } }] }, { content: 'Sent.' });
    await run(agentWithTool(guarded), 'email me', { context: { userId: 'u1' } });
    expect(sent).toEqual([{ to: 'u1@example.com', body: 'refunded' }]);
    const asGuest = guardAgentTool(sendEmailWith(sent), { ...options, transport, subject: () => ({ id: 'u1', roles: ['guest'] }) });
    const first = llm.requests.length;
    llm.enqueue({ toolCalls: [{ name: 'send_email', arguments: { to: 'u1@example.com', body: `card ${CARD}` } }] }, { content: 'No.' });
    await run(agentWithTool(asGuest), 'email me', { context: { userId: 'u1' } });
    expect(sent).toHaveLength(1);
    expect(toolMessages(first + 1).join()).toContain("tool 'send_email' is not allowed for roles guest");
  });

  it('guardAgentToolInput alone cannot change arguments: it refuses the call and says so', async () => {
    const sent: unknown[] = [];
    const bare = sendEmailWith(sent);
    const withGuardrail = { ...bare, inputGuardrails: [guardAgentToolInput<{ userId: string }>({ ...options, transport })] };
    const first = llm.requests.length;
    llm.enqueue({ toolCalls: [{ name: 'send_email', arguments: { to: 'u1@example.com', body: `card ${CARD}` } }] }, { content: 'Could not send.' });
    await run(agentWithTool(withGuardrail), 'email me', { context: { userId: 'u1' } });
    expect(sent).toEqual([]);
    const seen = toolMessages(first + 1).join();
    expect(seen).toContain('only with its arguments redacted');
    expect(seen).toContain('guardAgentTool');
    expect(seen).not.toContain('4111');
  });
});

describe('examples/agents-openai/agent.ts', () => {
  it('runs the example agent: its own account is read, a refund over 50 interrupts the run until a supervisor approves it in GuardAgent, then runs once', async () => {
    const { readFile } = await import('node:fs/promises');
    const { parsePolicyText } = await import('@guardagent/schemas');
    const { applyGuardAgentApprovals, guardInterruptions } = await import('../src/index');
    const { POLICY_FILE, createSupportAgent, subjectOf } = await import('../../../examples/agents-openai/agent');
    await transport.putPolicy(parsePolicyText(await readFile(POLICY_FILE, 'utf8'), 'refund-desk.yaml'));
    const model = new OpenAIChatCompletionsModel(new OpenAI({ baseURL: llm.baseURL, apiKey: 'sk-test', maxRetries: 0 }), 'fake-model');
    const heldCalls = transport.heldCalls();
    const agent = createSupportAgent(transport, model, heldCalls);
    const session = { id: 'cust-42', roles: ['support_agent'], attributes: { email: 'cust-42@example.com' } };
    llm.enqueue(
      { toolCalls: [{ name: 'read_account', arguments: { user_id: 'cust-42' } }, { name: 'issue_refund', arguments: { user_id: 'cust-42', amount: 80, reason: 'broken item' } }] },
      { content: 'Done.' },
    );
    const held = await run(agent, 'balance, and refund 80', { context: session });
    expect(held.interruptions.map((item) => item.name)).toEqual(['issue_refund']);
    const [call] = await guardInterruptions(held.state, { heldCalls, subject: subjectOf });
    expect(call!.held.reasons.join(' ')).toContain('refunds over 50 need');
    await transport.approve(call!.held.id, 'supervisor-ann');
    expect((await applyGuardAgentApprovals(held.state, { transport, heldCalls, subject: subjectOf })).approved).toHaveLength(1);
    const resumedAt = llm.requests.length;
    const result = await run(agent, held.state);
    expect(result.finalOutput).toBe('Done.');
    const seen = toolMessages(resumedAt).join();
    expect(seen).toContain('Ada');
    expect(seen).toContain('refunded 80 to cust-42');
  });
});
