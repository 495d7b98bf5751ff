/**
 * A Vercel AI SDK agent (generateText with tools) whose tools are guarded by GuardAgent.
 *
 * `guardTools(...)` wraps each `tool()`'s execute: the call is checked against
 * examples/policies/refund-desk.yaml first. On `deny` or `pending` the tool does not run and the
 * SDK hands the model GuardAgent's reasons as the tool's error.
 *
 * Run (workers from `guardagent up` on the same Redis; any OpenAI-compatible chat endpoint):
 *   REDIS_URL=redis://localhost:6379 OPENAI_BASE_URL=http://localhost:11434/v1 MODEL=llama3.1 \
 *     node --no-node-snapshot --import tsx examples/ai-sdk/agent.ts "refund me 80, it arrived broken"
 */
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, tool, type LanguageModel } from 'ai';
import { z } from 'zod';
import { QueueTransport, type GuardTransport, type SubjectInput } from '@guardagent/client';
import { guardTools } from '@guardagent/ai-sdk';
import { parsePolicyText } from '@guardagent/schemas';

export const POLICY_FILE = new URL('../policies/refund-desk.yaml', import.meta.url);

const accounts = new Map([
  ['cust-42', { name: 'Ada', balance: 120 }],
  ['cust-7', { name: 'Bob', balance: 3000 }],
]);

/** The shop's tools, guarded for the given session. Tool names match the policy's. */
export function supportTools(transport: GuardTransport, session: SubjectInput) {
  return guardTools(
    {
      read_account: tool({
        description: "Read a customer's account (name and balance).",
        inputSchema: z.object({ user_id: z.string() }),
        execute: async ({ user_id }) => accounts.get(user_id) ?? null,
      }),
      issue_refund: tool({
        description: 'Refund a customer.',
        inputSchema: z.object({ user_id: z.string(), amount: z.number(), reason: z.string() }),
        execute: async ({ user_id, amount }) => ({ refunded: amount, to: user_id }),
      }),
    },
    { transport, policy: 'refund-desk', subject: session },
  );
}

export async function answer(model: LanguageModel, transport: GuardTransport, session: SubjectInput, prompt: string): Promise<string> {
  const result = await generateText({
    model,
    system: 'You help the signed-in customer with their account.',
    tools: supportTools(transport, session),
    stopWhen: stepCountIs(5),
    prompt,
  });
  return result.text;
}

async function main(): Promise<void> {
  const transport = await QueueTransport.connect({ redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
  try {
    await transport.putPolicy(parsePolicyText(await readFile(POLICY_FILE, 'utf8'), 'refund-desk.yaml'));
    const provider = createOpenAICompatible({ name: 'llm', baseURL: process.env.OPENAI_BASE_URL ?? 'http://127.0.0.1:11434/v1', apiKey: process.env.OPENAI_API_KEY });
    const session = { id: 'cust-42', roles: ['support_agent'], attributes: { email: 'cust-42@example.com' } };
    process.stdout.write(`${await answer(provider.chatModel(process.env.MODEL ?? 'llama3.1'), transport, session, process.argv[2] ?? 'What is my balance?')}\n`);
  } finally {
    await transport.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
