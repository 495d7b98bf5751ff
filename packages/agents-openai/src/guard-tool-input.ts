import { ToolGuardrailFunctionOutputFactory, defineToolInputGuardrail, type RunContext, type ToolInputGuardrailDefinition } from '@openai/agents';
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
 */
export function guardAgentToolInput<C = unknown>(options: GuardToolInputOptions<C>): ToolInputGuardrailDefinition<C> {
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
        if (options.failMode === 'open') return ToolGuardrailFunctionOutputFactory.allow({ undecided: String(error) });
        return ToolGuardrailFunctionOutputFactory.rejectContent(
          `GuardAgent could not decide on the call to '${toolCall.name}' (${(error as Error)?.message ?? String(error)}); it was not run.`,
        );
      }
      options.onDecision?.(decision);
      if (decision.decision === 'allow') return ToolGuardrailFunctionOutputFactory.allow({ decisionId: decision.id });
      return ToolGuardrailFunctionOutputFactory.rejectContent(refusalText(toolCall.name, decision), { decisionId: decision.id, decision: decision.decision });
    },
  });
}
