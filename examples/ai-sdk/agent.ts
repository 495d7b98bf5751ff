/**
 * A Vercel AI SDK agent (generateText with tools) whose tools are guarded by GuardAgent.
 *
 * `guardTools(...)` wraps each `tool()`: the call is checked against
 * examples/policies/refund-desk.yaml first. On `deny` the tool does not run and the SDK hands the
 * model GuardAgent's reasons as the tool's error. On `pending` (a refund over 50) the call becomes
 * an AI SDK 6 tool approval request, which ends the generation: the conversation is saved, a
 * supervisor approves or rejects the call in GuardAgent (`guardagent approve --id ID --approver
 * NAME`, the API, or a chat button behind the approval webhook), and `--resume` answers the
 * request with what they decided: an approved refund runs once, a rejected one reaches the model
 * as denied, with the reason.
 *
 * Run (workers from `guardagent up` on the same Redis; any OpenAI-compatible chat endpoint):
 *   REDIS_URL=redis://localhost:6379 OPENAI_BASE_URL=http://localhost:11434/v1 MODEL=llama3.1 \
 *     node --import tsx examples/ai-sdk/agent.ts "refund me 80, it arrived broken"
 *   # held: approve it, then
 *   ... examples/ai-sdk/agent.ts --resume
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, tool, type LanguageModel, type ModelMessage } from 'ai';
import { z } from 'zod';
import { InMemoryHeldCalls, type ApprovalReader, type GuardTransport, type HeldCalls, type SubjectInput } from '@guardagent/client';
import { QueueTransport } from '@guardagent/client/queue';
import { guardAgentApprovalResponses, guardApprovalRequests, guardTools, type GuardApprovalRequest } from '@guardagent/ai-sdk';
import { parsePolicyText } from '@guardagent/schemas';

export const POLICY_FILE = new URL('../policies/refund-desk.yaml', import.meta.url);

const accounts = new Map([
  ['cust-42', { name: 'Ada', balance: 120 }],
  ['cust-7', { name: 'Bob', balance: 3000 }],
]);

/**
 * The shop's tools, guarded for the given session. Tool names match the policy's. `heldCalls`
 * keeps the tokens of held calls until they are answered (QueueTransport.heldCalls(): in Redis,
 * so the conversation may resume in another process).
 */
export function supportTools(transport: GuardTransport, session: SubjectInput, heldCalls: HeldCalls = new InMemoryHeldCalls()) {
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
    { transport, policy: 'refund-desk', subject: session, heldCalls },
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

/**
 * One turn of a conversation that may wait for approvals: first the requests a supervisor has
 * decided in GuardAgent are answered (approved ones then run once), then the model goes on. Returns
 * the model's text and the calls still held (the conversation, in `messages`, grows in place).
 */
export async function converse(
  model: LanguageModel,
  transport: GuardTransport & ApprovalReader,
  session: SubjectInput,
  messages: ModelMessage[],
  heldCalls: HeldCalls,
): Promise<{ text: string; held: GuardApprovalRequest[] }> {
  const { responses, waiting } = await guardAgentApprovalResponses(messages, { transport, heldCalls, subject: session });
  if (waiting.length > 0) return { text: '', held: waiting };
  if (responses.length > 0) messages.push({ role: 'tool', content: responses });
  const result = await generateText({
    model,
    system: 'You help the signed-in customer with their account.',
    tools: supportTools(transport, session, heldCalls),
    stopWhen: stepCountIs(5),
    messages,
  });
  messages.push(...result.response.messages);
  return { text: result.text, held: await guardApprovalRequests(result.content, { heldCalls, subject: session }) };
}

const CONVERSATION_FILE = new URL('./.conversation.json', import.meta.url);

async function main(): Promise<void> {
  const transport = await QueueTransport.connect({ redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
  try {
    await transport.putPolicy(parsePolicyText(await readFile(POLICY_FILE, 'utf8'), 'refund-desk.yaml'));
    const provider = createOpenAICompatible({ name: 'llm', baseURL: process.env.OPENAI_BASE_URL ?? 'http://127.0.0.1:11434/v1', apiKey: process.env.OPENAI_API_KEY });
    const session = { id: 'cust-42', roles: ['support_agent'], attributes: { email: 'cust-42@example.com' } };
    const messages: ModelMessage[] =
      process.argv[2] === '--resume'
        ? (JSON.parse(await readFile(CONVERSATION_FILE, 'utf8')) as ModelMessage[])
        : [{ role: 'user', content: process.argv[2] ?? 'What is my balance?' }];
    const { text, held } = await converse(provider.chatModel(process.env.MODEL ?? 'llama3.1'), transport, session, messages, transport.heldCalls());
    if (held.length > 0) {
      await writeFile(CONVERSATION_FILE, JSON.stringify(messages));
      for (const { request, held: call } of held) {
        process.stdout.write(`held: ${request.toolCall.toolName}(${JSON.stringify(request.toolCall.input)}): ${call.reasons.join('; ')}\n  guardagent approve --id ${call.id} --approver <name>   (then run again with --resume)\n`);
      }
      // The exit-code table: 4, held for approval.
      process.exitCode = 4;
      return;
    }
    await rm(CONVERSATION_FILE, { force: true });
    process.stdout.write(`${text}\n`);
  } finally {
    await transport.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
