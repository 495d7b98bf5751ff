import { ToolGuardrailFunctionOutputFactory, defineToolInputGuardrail, type FunctionTool, type RunContext, type ToolInputGuardrailDefinition } from '@openai/agents';
import {
  InMemoryHeldCalls,
  checkGuardedCall,
  type Decision,
  type GuardTransport,
  type GuardedCallOutcome,
  type HeldCallInfo,
  type HeldCalls,
  type JsonObject,
  type PolicyInput,
  type SubjectInput,
  type TextOrJson,
} from '@guardagent/client';

export interface GuardToolInputOptions<C> {
  transport: GuardTransport;
  /** A registered policy id, or a whole policy inline. */
  policy: string | PolicyInput;
  /** Who the agent acts for: fixed, or read from the run's context (the session). */
  subject: SubjectInput | ((context: RunContext<C>) => SubjectInput);
  /** I_i: the user's request, when the caller has it. */
  input?: TextOrJson | ((context: RunContext<C>) => TextOrJson);
  /** How long to wait for a decision (default 10 s). */
  timeoutMs?: number;
  /** When no decision can be had: refuse (default, like the policy's failMode closed) or let the tool run. */
  failMode?: 'open' | 'closed';
  /** Sees every decision (audit logs). */
  onDecision?: (decision: Decision) => void;
  /**
   * Where the tokens of held calls are kept between the hold and the retry (the resumed run).
   * Default: in this process (per guarded tool). Give every tool and the interruption helpers the
   * same one, and RedisHeldCalls (QueueTransport.heldCalls()) when a run may resume in another process.
   */
  heldCalls?: HeldCalls;
  /**
   * guardAgentTool only. `interrupt` (default): a call GuardAgent holds becomes one of the run's
   * interruptions (`result.interruptions`), the SDK's own human-in-the-loop flow; `refuse`: the
   * model reads that the call is held (with its approval id and token) and the run goes on.
   */
  onHeld?: 'interrupt' | 'refuse';
}

const resolve = <T, C>(value: T | ((context: RunContext<C>) => T), context: RunContext<C>): T =>
  typeof value === 'function' ? (value as (context: RunContext<C>) => T)(context) : value;

/** The text the model reads in place of the tool's output when the call is not allowed. */
export function refusalText(tool: string, decision: Decision): string {
  const reasons = decision.reasons.length > 0 ? decision.reasons.join('; ') : `${decision.decision} by the guard`;
  if (decision.decision === 'pending' && decision.approval) {
    return `GuardAgent held the call to '${tool}' for approval (${reasons}). Approval token: ${decision.approval.token}. The tool did not run.`;
  }
  return `GuardAgent denied the call to '${tool}': ${reasons}. The tool did not run.`;
}

/** The text the model reads for a held call the run goes on without (`onHeld: refuse`, or a retry nobody decided yet). */
export function heldText(tool: string, held: HeldCallInfo, waiting: boolean): string {
  const reasons = held.reasons.join('; ') || 'an approver must approve it';
  const state = waiting ? 'still holds' : 'held';
  return (
    `GuardAgent ${state} the call to '${tool}' for approval (${reasons}); the tool did not run. ` +
    `Approval id ${held.id}, token ${held.token}${held.expiresAt ? `, until ${held.expiresAt}` : ''}. ` +
    'Once a person approves it, the same call (same tool, same arguments) runs once.'
  );
}

const parseArgs = (raw: unknown): JsonObject | null => {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw || '{}');
    } catch {
      return null;
    }
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : null;
};

/** Decisions made in `needsApproval`, handed to the guardrail of the same call (bounded: a call the run never executes leaves one behind). */
const MAX_REMEMBERED_CALLS = 1000;

class CallMemo<T> {
  private readonly entries = new Map<string, T>();
  set(callId: string, value: T): void {
    this.entries.delete(callId);
    this.entries.set(callId, value);
    if (this.entries.size > MAX_REMEMBERED_CALLS) this.entries.delete(this.entries.keys().next().value!);
  }
  take(callId: string | undefined): T | undefined {
    if (callId === undefined) return undefined;
    const value = this.entries.get(callId);
    this.entries.delete(callId);
    return value;
  }
}

/**
 * A tool input guardrail of the OpenAI Agents SDK: before the SDK runs a function tool, the call
 * (`{ kind: "tool_call", tool, args }`) is checked by GuardAgent. `allow` lets the tool run;
 * `deny` and `pending` reject the call's content, so the model reads the reasons instead of an
 * output and the tool never runs. Arguments that are not a JSON object are refused. With
 * `heldCalls`, the retry of a held call presents its token (approved, it runs once).
 *
 * A guardrail cannot change the arguments the SDK runs the tool with. So an allowed call whose
 * arguments the policy redacts (`decision.redacted.args`: PII in them, `pii: redact`) is refused
 * here too, saying so: guard such tools with `guardAgentTool()`, which runs them with the
 * redacted arguments and maps held calls onto the SDK's approval interruptions.
 */
export function guardAgentToolInput<C = unknown>(options: GuardToolInputOptions<C>): ToolInputGuardrailDefinition<C> {
  return guardrail(options, options.heldCalls ?? new InMemoryHeldCalls(), null, new CallMemo());
}

/**
 * An OpenAI Agents SDK function tool guarded by GuardAgent.
 *
 * - Its `needsApproval` asks GuardAgent first: a call GuardAgent holds for a person's approval
 *   becomes an interruption of the run (`result.interruptions`), the SDK's own human-in-the-loop
 *   flow; a call it allows or denies needs no approval (a denied one is refused by the guardrail,
 *   and the model reads why). The tool's own `needsApproval` still applies to calls GuardAgent allows.
 * - Once a person approved the held call (in GuardAgent: the API, the CLI, a chat button behind
 *   the webhook; then `applyGuardAgentApprovals`, or through the SDK with `approveInterruption`),
 *   `run(agent, state)` resumes and the guardrail presents the call's token: it runs once. A
 *   rejected call reaches the model as a refusal with who rejected it and why. The same call made
 *   again later is held afresh.
 * - The tool runs with the arguments the decision allows, the redacted ones when the policy
 *   redacts PII from tool-call arguments (never the model's own).
 */
// biome-ignore lint/suspicious/noExplicitAny: any tool, whatever its parameter and result types
export function guardAgentTool<C, T extends FunctionTool<C, any, any>>(tool: T, options: GuardToolInputOptions<C>): T {
  const substitutes = new CallMemo<string>();
  const decided = new CallMemo<GuardedCallOutcome | 'undecided'>();
  const heldCalls = options.heldCalls ?? new InMemoryHeldCalls();
  const allowedWith = (callId: string, args: Record<string, unknown>) => substitutes.set(callId, JSON.stringify(args));
  const invoke = tool.invoke;
  const ownApproval = tool.needsApproval;
  const interrupt = (options.onHeld ?? 'interrupt') === 'interrupt';
  const guarded: T = {
    ...tool,
    inputGuardrails: [...(tool.inputGuardrails ?? []), guardrail(options, heldCalls, { allowedWith, allowedAsIs: (callId) => void substitutes.take(callId) }, decided)],
    invoke: (runContext: RunContext<C>, input: string, details?: Parameters<T['invoke']>[2]) => {
      const redacted = substitutes.take(details?.toolCall?.callId);
      return invoke(runContext, redacted ?? input, details);
    },
  };
  if (!interrupt) return guarded;
  guarded.needsApproval = async (runContext, input, callId) => {
    const args = parseArgs(input);
    // Not a JSON object: the guardrail refuses it.
    if (!args) return false;
    const context = runContext as RunContext<C>;
    const subject = resolve(options.subject, context);
    const held = await heldCalls.get(subject.id, tool.name, args);
    if (held) {
      // A call held before: what a person decided in GuardAgent says whether the run must wait.
      const status = await approvalStatus(options.transport, held.token);
      if (status === 'pending') return true;
      if (status === 'used' || status === 'expired' || status === 'unknown') await heldCalls.forget(subject.id, tool.name, args, held.token);
      // approved: the guardrail presents the token and the call runs once; rejected: it refuses with the reason.
      if (status === 'approved' || status === 'rejected') return false;
    }
    let outcome: GuardedCallOutcome;
    try {
      outcome = await decide(options, heldCalls, context, tool.name, args, callId);
    } catch {
      // No decision: the guardrail asks again, and fails as the options say.
      if (callId) decided.set(callId, 'undecided');
      return false;
    }
    if (outcome.kind === 'pending') return true;
    if (callId) decided.set(callId, outcome);
    if (outcome.kind === 'allow' && ownApproval) return ownApproval(runContext, input, callId);
    return false;
  };
  return guarded;
}

/** What GuardAgent says of a held call now (`pending` when the transport cannot say: the run keeps waiting). */
async function approvalStatus(transport: GuardTransport, token: string): Promise<string> {
  const reader = transport as Partial<{ approval(token: string): Promise<{ status: string } | null> }>;
  if (typeof reader.approval !== 'function') return 'pending';
  const view = await reader.approval(token).catch(() => null);
  return view?.status ?? 'unknown';
}

function decide<C>(options: GuardToolInputOptions<C>, heldCalls: HeldCalls, context: RunContext<C>, tool: string, args: JsonObject, callId?: string): Promise<GuardedCallOutcome> {
  const subject = resolve(options.subject, context);
  return checkGuardedCall({
    check: (job) => options.transport.check(job, { timeoutMs: options.timeoutMs ?? 10_000 }),
    job: {
      policy: options.policy,
      input: options.input !== undefined ? resolve(options.input, context) : '',
      output: { tool, args },
      action: { kind: 'tool_call', tool, args },
      subject,
      ...(callId ? { context: { agentsSdk: { callId } } } : {}),
    },
    subjectId: subject.id,
    tool,
    args,
    heldCalls,
  });
}

interface Substitution {
  /** The call is allowed with these arguments in place of the model's. */
  allowedWith(callId: string, args: Record<string, unknown>): void;
  /** The call is allowed with its own arguments. */
  allowedAsIs(callId: string): void;
}

function guardrail<C>(
  options: GuardToolInputOptions<C>,
  heldCalls: HeldCalls,
  substitution: Substitution | null,
  decided: CallMemo<GuardedCallOutcome | 'undecided'>,
): ToolInputGuardrailDefinition<C> {
  return defineToolInputGuardrail<C>({
    name: 'guardagent',
    async run({ context, toolCall }) {
      const args = parseArgs(toolCall.arguments || '{}');
      if (!args) {
        return ToolGuardrailFunctionOutputFactory.rejectContent(`GuardAgent refused the call to '${toolCall.name}': its arguments are not a JSON object.`);
      }
      // Decided in needsApproval for this very call: not asked twice (a rate limit counts it once).
      const earlier = decided.take(toolCall.callId);
      let outcome: GuardedCallOutcome;
      try {
        if (earlier !== undefined && earlier !== 'undecided') outcome = earlier;
        else outcome = await decide(options, heldCalls, context, toolCall.name, args, toolCall.callId);
      } catch (error) {
        if (options.failMode === 'open') {
          substitution?.allowedAsIs(toolCall.callId);
          return ToolGuardrailFunctionOutputFactory.allow({ undecided: String(error) });
        }
        return ToolGuardrailFunctionOutputFactory.rejectContent(
          `GuardAgent could not decide on the call to '${toolCall.name}' (${(error as Error)?.message ?? String(error)}); it was not run.`,
        );
      }
      const { decision } = outcome;
      options.onDecision?.(decision);
      if (outcome.kind === 'pending') {
        return ToolGuardrailFunctionOutputFactory.rejectContent(heldText(toolCall.name, outcome.held, decision.decision !== 'pending'), {
          decisionId: decision.id,
          decision: 'pending',
          approvalId: outcome.held.id,
        });
      }
      if (outcome.kind === 'deny') {
        return ToolGuardrailFunctionOutputFactory.rejectContent(refusalText(toolCall.name, decision), { decisionId: decision.id, decision: decision.decision });
      }
      const redacted = decision.redacted?.args;
      if (redacted === undefined) {
        substitution?.allowedAsIs(toolCall.callId);
        return ToolGuardrailFunctionOutputFactory.allow({ decisionId: decision.id });
      }
      if (!substitution) {
        return ToolGuardrailFunctionOutputFactory.rejectContent(
          `GuardAgent allowed the call to '${toolCall.name}' only with its arguments redacted (${decision.reasons.join('; ')}), and a tool guarded by guardAgentToolInput alone cannot be run with other arguments; it was not run (guard it with guardAgentTool).`,
          { decisionId: decision.id, decision: decision.decision },
        );
      }
      substitution.allowedWith(toolCall.callId, redacted);
      return ToolGuardrailFunctionOutputFactory.allow({ decisionId: decision.id, redacted: true });
    },
  });
}
