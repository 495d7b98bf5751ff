/**
 * An OpenAI Agents SDK agent whose function tools are guarded by GuardAgent.
 *
 * Each tool is wrapped by `guardAgentTool(...)`: before the SDK runs the tool, the call is checked
 * against examples/policies/refund-desk.yaml. On `allow` it runs with the arguments the decision
 * allows (a card number the policy redacts never reaches it); on `deny` the tool does not run and
 * the model reads GuardAgent's reasons instead of an output. On `pending` (a refund over 50) the
 * run stops with an interruption, the SDK's own human-in-the-loop flow: the run state is saved,
 * a supervisor approves or rejects the call in GuardAgent (`guardagent approve --id ID --approver
 * NAME`, the API, or a chat button behind the approval webhook), and `--resume` picks the run up:
 * an approved refund runs once, a rejected one reaches the model as a refusal with the reason.
 *
 * Run (workers from `guardagent up` on the same Redis; any OpenAI-compatible chat endpoint):
 *   REDIS_URL=redis://localhost:6379 OPENAI_BASE_URL=http://localhost:11434/v1 MODEL=llama3.1 \
 *     node --import tsx examples/agents-openai/agent.ts "refund 80 for the broken kettle"
 *   # held: approve it, then
 *   ... examples/agents-openai/agent.ts --resume
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { Agent, OpenAIChatCompletionsModel, RunState, run, setTracingDisabled, tool, type RunContext } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import type { GuardTransport, HeldCalls } from '@guardagent/client';
import { QueueTransport } from '@guardagent/client/queue';
import { applyGuardAgentApprovals, guardAgentTool, guardInterruptions, type GuardToolInputOptions } from '@guardagent/agents-openai';
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

/** Who the run acts for: the session in its context. */
export const subjectOf = (ctx: RunContext<Session>) => ctx.context;

/**
 * The support agent: its tools run only when GuardAgent allows the call. `heldCalls` keeps the
 * tokens of held calls until the run resumes (QueueTransport.heldCalls(): in Redis, so the run may
 * resume in another process).
 */
export function createSupportAgent(transport: GuardTransport, model: OpenAIChatCompletionsModel, heldCalls: HeldCalls): Agent<Session> {
  const guard: GuardToolInputOptions<Session> = { transport, policy: 'refund-desk', subject: subjectOf, heldCalls };
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

const STATE_FILE = new URL('./.run-state.json', import.meta.url);

async function main(): Promise<void> {
  setTracingDisabled(true);
  const transport = await QueueTransport.connect({ redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
  try {
    await transport.putPolicy(parsePolicyText(await readFile(POLICY_FILE, 'utf8'), 'refund-desk.yaml'));
    const openai = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY ?? 'unused' });
    const heldCalls = transport.heldCalls();
    const agent = createSupportAgent(transport, new OpenAIChatCompletionsModel(openai, process.env.MODEL ?? 'gpt-4o-mini'), heldCalls);
    const session: Session = { id: 'cust-42', roles: ['support_agent'], attributes: { email: 'cust-42@example.com' } };
    let result;
    if (process.argv[2] === '--resume') {
      const state = await RunState.fromString<Session, typeof agent>(agent, await readFile(STATE_FILE, 'utf8'));
      // What the supervisor decided in GuardAgent: approved calls run once, rejected ones are refused with the reason.
      const { waiting } = await applyGuardAgentApprovals(state, { transport, heldCalls, subject: subjectOf });
      if (waiting.length > 0) {
        process.stdout.write(`still waiting for ${waiting.length} approval(s)\n`);
        process.exitCode = 4;
        return;
      }
      result = await run(agent, state);
    } else {
      result = await run(agent, process.argv[2] ?? 'What is my balance?', { context: session });
    }
    if (result.interruptions.length > 0) {
      await writeFile(STATE_FILE, result.state.toString());
      for (const { item, held } of await guardInterruptions(result.state, { heldCalls, subject: subjectOf })) {
        process.stdout.write(`held: ${item.name}(${item.arguments}): ${held.reasons.join('; ')}\n  guardagent approve --id ${held.id} --approver <name>   (then run again with --resume)\n`);
      }
      // The exit-code table: 4, held for approval.
      process.exitCode = 4;
      return;
    }
    await rm(STATE_FILE, { force: true });
    process.stdout.write(`${String(result.finalOutput)}\n`);
  } finally {
    await transport.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
