import type { ToolExecutionOptions, ToolSet } from 'ai';
import type { GuardTransport, SubjectInput } from '@guardagent/client';
import { GuardDeniedError, UnavailableError } from '@guardagent/errors';
import type { Decision, JsonObject, PolicyInput, TextOrJson } from '@guardagent/schemas';

export interface GuardToolsOptions {
  transport: GuardTransport;
  /** A registered policy id, or a whole policy inline. */
  policy: string | PolicyInput;
  /** Who the agent acts for: fixed, or per call (e.g. from `experimental_context`). */
  subject: SubjectInput | ((options: ToolExecutionOptions) => SubjectInput);
  /** I_i: the user's request, when the caller has it. */
  input?: TextOrJson | ((options: ToolExecutionOptions) => TextOrJson);
  /** How long to wait for a decision (default 10 s). */
  timeoutMs?: number;
  /** Sees every decision (audit logs). */
  onDecision?: (decision: Decision, tool: string) => void;
}

const resolve = <T>(value: T | ((options: ToolExecutionOptions) => T), options: ToolExecutionOptions): T =>
  typeof value === 'function' ? (value as (options: ToolExecutionOptions) => T)(options) : value;

/**
 * Wraps the `execute` of each Vercel AI SDK `tool()` so GuardAgent checks every call first, as
 * `{ kind: "tool_call", tool: <key in the tool set>, args }`. The tool runs only on `allow`;
 * `deny` and `pending` throw GuardDeniedError, which the SDK hands the model as the tool's error
 * (with the reasons and, for a held call, the approval token), so the model can adapt. An allowed
 * call whose arguments the policy redacts (`pii: redact` on the input filters) runs with the
 * redacted arguments (`decision.redacted.args`), never the model's own. When no
 * decision can be had the error propagates and the tool does not run (fail closed).
 * Tools without `execute` (answered by the client) are returned unchanged.
 */
export function guardTools<T extends ToolSet>(tools: T, options: GuardToolsOptions): T {
  const guarded: Record<string, unknown> = {};
  for (const [name, definition] of Object.entries(tools)) {
    const execute = definition.execute as ((input: unknown, callOptions: ToolExecutionOptions) => unknown) | undefined;
    if (!execute) {
      guarded[name] = definition;
      continue;
    }
    guarded[name] = {
      ...definition,
      execute: async (input: unknown, callOptions: ToolExecutionOptions) => {
        if (!input || typeof input !== 'object' || Array.isArray(input)) {
          throw new GuardDeniedError(name, ['the arguments are not a JSON object'], null);
        }
        const args = input as JsonObject;
        let decision: Decision;
        try {
          decision = await options.transport.check(
            {
              policy: options.policy,
              input: options.input !== undefined ? resolve(options.input, callOptions) : '',
              output: { tool: name, args },
              action: { kind: 'tool_call', tool: name, args },
              subject: resolve(options.subject, callOptions),
              context: { aiSdk: { toolCallId: callOptions.toolCallId } },
            },
            { timeoutMs: options.timeoutMs ?? 10_000 },
          );
        } catch (error) {
          throw new UnavailableError(`GuardAgent could not decide on the call to '${name}'; it was not run: ${(error as Error)?.message ?? String(error)}`, { tool: name });
        }
        options.onDecision?.(decision, name);
        if (decision.decision !== 'allow') {
          const reasons = decision.reasons.length > 0 ? [...decision.reasons] : [`${decision.decision} by the guard`];
          if (decision.decision === 'pending' && decision.approval) reasons.push(`held for approval; approval token ${decision.approval.token}`);
          throw new GuardDeniedError(name, reasons, decision);
        }
        // Run with the arguments the guard allowed: the redacted ones when the policy redacts PII
        // from tool-call arguments, never the model's own.
        return execute(decision.redacted?.args ?? input, callOptions);
      },
    };
  }
  return guarded as T;
}
