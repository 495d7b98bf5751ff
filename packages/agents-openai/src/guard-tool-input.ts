import { ToolGuardrailFunctionOutputFactory, defineToolInputGuardrail, type FunctionTool, type RunContext, type ToolInputGuardrailDefinition } from '@openai/agents';
import type { GuardTransport, SubjectInput } from '@guardagent/client';
import type { Decision, JsonObject, PolicyInput, TextOrJson } from '@guardagent/schemas';

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

/**
 * A tool input guardrail of the OpenAI Agents SDK: before the SDK runs a function tool, the call
 * (`{ kind: "tool_call", tool, args }`) is checked by GuardAgent. `allow` lets the tool run;
 * `deny` and `pending` reject the call's content, so the model reads the reasons instead of an
 * output and the tool never runs. Arguments that are not a JSON object are refused.
 *
 * A guardrail cannot change the arguments the SDK runs the tool with. So an allowed call whose
 * arguments the policy redacts (`decision.redacted.args`: PII in them, `pii: redact`) is refused
 * here too, saying so: guard such tools with `guardAgentTool()`, which runs them with the
 * redacted arguments.
 */
export function guardAgentToolInput<C = unknown>(options: GuardToolInputOptions<C>): ToolInputGuardrailDefinition<C> {
  return guardrail(options, null);
}

/** Redacted arguments handed from a guardrail to its tool's invoke, by call id (bounded: a call another guardrail refused never reaches invoke). */
const MAX_PENDING_SUBSTITUTES = 1000;

/**
 * An OpenAI Agents SDK function tool guarded by GuardAgent: `guardAgentToolInput(options)` is
 * added to its input guardrails, and the tool runs with the arguments the decision allows, the
 * redacted ones when the policy redacts PII from tool-call arguments (never the model's own).
 */
// biome-ignore lint/suspicious/noExplicitAny: any tool, whatever its parameter and result types
export function guardAgentTool<C, T extends FunctionTool<C, any, any>>(tool: T, options: GuardToolInputOptions<C>): T {
  const substitutes = new Map<string, string>();
  const allowedWith = (callId: string, args: Record<string, unknown>) => {
    substitutes.delete(callId);
    substitutes.set(callId, JSON.stringify(args));
    if (substitutes.size > MAX_PENDING_SUBSTITUTES) substitutes.delete(substitutes.keys().next().value!);
  };
  const invoke = tool.invoke;
  return {
    ...tool,
    inputGuardrails: [...(tool.inputGuardrails ?? []), guardrail(options, { allowedWith, allowedAsIs: (callId) => substitutes.delete(callId) })],
    invoke: (runContext: RunContext<C>, input: string, details?: Parameters<T['invoke']>[2]) => {
      const callId = details?.toolCall?.callId;
      const redacted = callId !== undefined ? substitutes.get(callId) : undefined;
      if (callId !== undefined) substitutes.delete(callId);
      return invoke(runContext, redacted ?? input, details);
    },
  };
}

interface Substitution {
  /** The call is allowed with these arguments in place of the model's. */
  allowedWith(callId: string, args: Record<string, unknown>): void;
  /** The call is allowed with its own arguments. */
  allowedAsIs(callId: string): void;
}

function guardrail<C>(options: GuardToolInputOptions<C>, substitution: Substitution | null): ToolInputGuardrailDefinition<C> {
  return defineToolInputGuardrail<C>({
    name: 'guardagent',
    async run({ context, toolCall }) {
      let args: unknown;
      try {
        args = JSON.parse(toolCall.arguments || '{}');
      } catch {
        args = undefined;
      }
      if (!args || typeof args !== 'object' || Array.isArray(args)) {
        return ToolGuardrailFunctionOutputFactory.rejectContent(`GuardAgent refused the call to '${toolCall.name}': its arguments are not a JSON object.`);
      }
      let decision: Decision;
      try {
        decision = await options.transport.check(
          {
            policy: options.policy,
            input: options.input !== undefined ? resolve(options.input, context) : '',
            output: { tool: toolCall.name, args: args as JsonObject },
            action: { kind: 'tool_call', tool: toolCall.name, args: args as JsonObject },
            subject: resolve(options.subject, context),
            context: { agentsSdk: { callId: toolCall.callId } },
          },
          { timeoutMs: options.timeoutMs ?? 10_000 },
        );
      } catch (error) {
        if (options.failMode === 'open') {
          substitution?.allowedAsIs(toolCall.callId);
          return ToolGuardrailFunctionOutputFactory.allow({ undecided: String(error) });
        }
        return ToolGuardrailFunctionOutputFactory.rejectContent(
          `GuardAgent could not decide on the call to '${toolCall.name}' (${(error as Error)?.message ?? String(error)}); it was not run.`,
        );
      }
      options.onDecision?.(decision);
      if (decision.decision !== 'allow') {
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
