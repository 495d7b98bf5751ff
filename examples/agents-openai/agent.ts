/**
 * An OpenAI Agents SDK agent whose function tools are guarded by GuardAgent.
 *
 * Each tool is wrapped by `guardAgentTool(...)`: before the SDK runs the tool, the call is checked
 * against examples/policies/refund-desk.yaml (a tool input guardrail). On `deny` or `pending` the
 * tool does not run and the model reads GuardAgent's reasons instead of an output; on `allow` it
 * runs with the arguments the decision allows (a card number the policy redacts never reaches it).
 *
 * Run (workers from `guardagent up` on the same Redis; any OpenAI-compatible chat endpoint):
 *   REDIS_URL=redis://localhost:6379 OPENAI_BASE_URL=http://localhost:11434/v1 MODEL=llama3.1 \
 *     node --no-node-snapshot --import tsx examples/agents-openai/agent.ts "what is my balance?"
 */
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { QueueTransport, type GuardTransport } from '@guardagent/client';
import { guardAgentTool, type GuardToolInputOptions } from '@guardagent/agents-openai';
import { parsePolicyText } from '@guardagent/schemas';

export const POLICY_FILE = new URL('../policies/refund-desk.yaml', import.meta.url);

/** The signed-in customer's session, passed to the run as its context. */
export interface Session {
  id: string;
  roles: string[];
  attributes: { email: string };
}

const accounts = new Map([
  ['cust-42', { name: 'Ada', balance: 120 }],
  ['cust-7', { name: 'Bob', balance: 3000 }],
]);

/** The support agent: its tools run only when GuardAgent allows the call. */
export function createSupportAgent(transport: GuardTransport, model: OpenAIChatCompletionsModel): Agent<Session> {
  const guard: GuardToolInputOptions<Session> = { transport, policy: 'refund-desk', subject: (ctx) => ctx.context };
  const readAccount = guardAgentTool(
    tool({
      name: 'read_account',
      description: "Read a customer's account (name and balance).",
      parameters: z.object({ user_id: z.string() }),
      execute: async ({ user_id }) => JSON.stringify(accounts.get(user_id) ?? null),
    }),
    guard,
  );
  const issueRefund = guardAgentTool(
    tool({
      name: 'issue_refund',
      description: 'Refund a customer.',
      parameters: z.object({ user_id: z.string(), amount: z.number(), reason: z.string() }),
      execute: async ({ user_id, amount }) => `refunded ${amount} to ${user_id}`,
    }),
    guard,
  );
  return new Agent<Session>({ name: 'support', instructions: 'You help the signed-in customer with their account.', model, tools: [readAccount, issueRefund] });
}

async function main(): Promise<void> {
  setTracingDisabled(true);
  const transport = await QueueTransport.connect({ redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
  try {
    await transport.putPolicy(parsePolicyText(await readFile(POLICY_FILE, 'utf8'), 'refund-desk.yaml'));
    const openai = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY ?? 'unused' });
    const agent = createSupportAgent(transport, new OpenAIChatCompletionsModel(openai, process.env.MODEL ?? 'gpt-4o-mini'));
    const session: Session = { id: 'cust-42', roles: ['support_agent'], attributes: { email: 'cust-42@example.com' } };
    const result = await run(agent, process.argv[2] ?? 'What is my balance?', { context: session });
    process.stdout.write(`${String(result.finalOutput)}\n`);
  } finally {
    await transport.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
