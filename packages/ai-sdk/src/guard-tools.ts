import type { ModelMessage, ToolExecutionOptions, ToolSet } from 'ai';
// Errors and types through the SDK's entry: the packed adapter leaves `@guardagent/client` to the
// user's project (a peer), so what it throws is the class the user imports from there.
import {
  GuardDeniedError,
  GuardPendingError,
  InMemoryHeldCalls,
  UnavailableError,
  checkGuardedCall,
  type Decision,
  type GuardTransport,
  type GuardedCallOutcome,
  type HeldCalls,
  type JsonObject,
  type PolicyInput,
  type SubjectInput,
  type TextOrJson,
} from '@guardagent/client';

/** What the SDK tells a tool about one call (its execute options; `needsApproval` gets all but the abort signal). */
type CallInfo = Pick<ToolExecutionOptions, 'toolCallId' | 'messages'> & Partial<ToolExecutionOptions>;

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
  /**
   * Where the tokens of held calls are kept until the approved call is run. Default: in this
   * process (per guardTools call). Give the tools and the approval helpers the same one, and
   * RedisHeldCalls (QueueTransport.heldCalls()) when the conversation may resume in another process.
   */
  heldCalls?: HeldCalls;
  /**
   * `approval` (default): a call GuardAgent holds becomes a tool approval request of AI SDK 6
   * (`needsApproval`), which ends the generation until the request is answered; `refuse`: the
   * model reads that the call is held (a tool error) and the generation goes on.
   */
  onHeld?: 'approval' | 'refuse';
}

const resolve = <T>(value: T | ((options: ToolExecutionOptions) => T), options: CallInfo): T =>
  typeof value === 'function' ? (value as (options: ToolExecutionOptions) => T)(options as ToolExecutionOptions) : value;

const MAX_REMEMBERED_CALLS = 1000;

/** Whether the conversation already holds a tool approval request for this call: the SDK is resuming it. */
function resumed(messages: readonly ModelMessage[], toolCallId: string): boolean {
  return messages.some(
    (message) =>
      message.role === 'assistant' &&
      Array.isArray(message.content) &&
      message.content.some((part) => part.type === 'tool-approval-request' && part.toolCallId === toolCallId),
  );
}

/** What GuardAgent says of a held call now (`pending` when the transport cannot say). */
async function approvalStatus(transport: GuardTransport, token: string): Promise<string> {
  const reader = transport as Partial<{ approval(token: string): Promise<{ status: string } | null> }>;
  if (typeof reader.approval !== 'function') return 'pending';
  const view = await reader.approval(token).catch(() => null);
  return view?.status ?? 'unknown';
}

/**
 * Wraps each Vercel AI SDK `tool()` so GuardAgent checks every call first, as
 * `{ kind: "tool_call", tool: <key in the tool set>, args }`.
 *
 * - A call GuardAgent holds for a person's approval becomes a tool approval request of AI SDK 6
 *   (the tool's `needsApproval`): the generation ends with a `tool-approval-request` part. Once a
 *   person decided it (in GuardAgent: the API, the CLI, a chat button behind the approval webhook,
 *   then `guardAgentApprovalResponses`; or in your app through the SDK's flow, recorded in
 *   GuardAgent by `respondToApproval`), the conversation resumes with the `tool-approval-response`:
 *   an approved call runs once (its execute presents the call's token), a rejected one reaches the
 *   model as denied with who rejected it and why. The same call made again later is held afresh.
 * - A call GuardAgent allows or denies needs no approval (one check): an allowed one runs with the
 *   arguments the decision allows (`decision.redacted.args` when PII was redacted), a denied one
 *   throws GuardDeniedError, which the SDK hands the model as the tool's error. A call approved
 *   only in the SDK, never in GuardAgent, throws GuardPendingError: it does not run.
 * - When no decision can be had the error propagates and the tool does not run (fail closed).
 *
 * Tools without `execute` (answered by the client) are returned unchanged. A tool's own
 * `needsApproval` still applies to the calls GuardAgent allows.
 */
export function guardTools<T extends ToolSet>(tools: T, options: GuardToolsOptions): T {
  const heldCalls = options.heldCalls ?? new InMemoryHeldCalls();
  const decided = new Map<string, GuardedCallOutcome>();
  const keep = (toolCallId: string, outcome: GuardedCallOutcome) => {
    decided.delete(toolCallId);
    decided.set(toolCallId, outcome);
    if (decided.size > MAX_REMEMBERED_CALLS) decided.delete(decided.keys().next().value!);
  };
  const guarded: Record<string, unknown> = {};
  for (const [name, definition] of Object.entries(tools)) {
    const execute = definition.execute as ((input: unknown, callOptions: ToolExecutionOptions) => unknown) | undefined;
    if (!execute) {
      guarded[name] = definition;
      continue;
    }
    const ownApproval = definition.needsApproval;
    const check = (args: JsonObject, call: CallInfo): Promise<GuardedCallOutcome> => {
      const subject = resolve(options.subject, call);
      return checkGuardedCall({
        check: (job) => options.transport.check(job, { timeoutMs: options.timeoutMs ?? 10_000 }),
        job: {
          policy: options.policy,
          input: options.input !== undefined ? resolve(options.input, call) : '',
          output: { tool: name, args },
          action: { kind: 'tool_call', tool: name, args },
          subject,
          context: { aiSdk: { toolCallId: call.toolCallId } },
        },
        subjectId: subject.id,
        tool: name,
        args,
        heldCalls,
      });
    };
    const wrapped: Record<string, unknown> = {
      ...definition,
      execute: async (input: unknown, callOptions: ToolExecutionOptions) => {
        if (!input || typeof input !== 'object' || Array.isArray(input)) {
          throw new GuardDeniedError(name, ['the arguments are not a JSON object'], null);
        }
        let outcome = decided.get(callOptions.toolCallId);
        decided.delete(callOptions.toolCallId);
        if (!outcome) {
          try {
            // The retry of a held call presents its token (kept in heldCalls).
            outcome = await check(input as JsonObject, callOptions);
          } catch (error) {
            throw new UnavailableError(`GuardAgent could not decide on the call to '${name}'; it was not run: ${(error as Error)?.message ?? String(error)}`, { tool: name });
          }
        }
        options.onDecision?.(outcome.decision, name);
        if (outcome.kind === 'pending') throw new GuardPendingError(name, outcome.held, outcome.decision);
        if (outcome.kind === 'deny') throw new GuardDeniedError(name, outcome.reasons.length > 0 ? outcome.reasons : ['denied by the guard'], outcome.decision);
        // Run with the arguments the guard allowed: the redacted ones when the policy redacts PII
        // from tool-call arguments, never the model's own.
        return execute(outcome.args, callOptions);
      },
    };
    if ((options.onHeld ?? 'approval') === 'approval') {
      wrapped.needsApproval = async (input: unknown, call: CallInfo): Promise<boolean> => {
        // Not a JSON object: execute refuses it.
        if (!input || typeof input !== 'object' || Array.isArray(input)) return false;
        const args = input as JsonObject;
        const subject = resolve(options.subject, call);
        const held = await heldCalls.get(subject.id, name, args);
        if (held) {
          // Resuming this very request: keep the SDK's answer; execute presents the token.
          if (resumed(call.messages, call.toolCallId)) return true;
          const status = await approvalStatus(options.transport, held.token);
          if (status === 'pending') return true;
          // Approved: execute presents the token and the call runs once; rejected: it reads the refusal.
          if (status === 'approved' || status === 'rejected') return false;
          await heldCalls.forget(subject.id, name, args, held.token);
        }
        let outcome: GuardedCallOutcome;
        try {
          outcome = await check(args, call);
        } catch {
          // No decision: execute asks again, and fails closed.
          return false;
        }
        if (outcome.kind === 'pending') return true;
        keep(call.toolCallId, outcome);
        if (outcome.kind === 'allow' && ownApproval !== undefined) {
          return typeof ownApproval === 'function' ? ownApproval(input as never, call) : ownApproval;
        }
        return false;
      };
    }
    guarded[name] = wrapped;
  }
  return guarded as T;
}
