import { GuardDeniedError, GuardPendingError } from '@guardagent/errors';
import type { Decision, GuardJobInput, JsonObject, PolicyInput, Subject, TextOrJson } from '@guardagent/schemas';
import type { GuardTransport } from './guard-transport';
import { checkGuardedCall } from './guarded-call';
import type { HeldCalls } from './held-calls';

type MaybePromise<T> = T | Promise<T>;
type PerCall<T, A> = T | ((args: A) => MaybePromise<T>);
/** A subject as the schema accepts it (roles and attributes may be left out). */
export type SubjectInput = Pick<Subject, 'id'> & Partial<Omit<Subject, 'id'>>;

export interface GuardToolOptions<A> {
  transport: GuardTransport;
  /** A registered policy id, or a whole policy inline. */
  policy: string | PolicyInput;
  /** The tool's name as the policy's rails and guard code know it. */
  toolName: string;
  /** Who the agent acts for: fixed, or looked up per call (e.g. from the session). */
  subject?: PerCall<SubjectInput, A>;
  /** I_i: the agent's input (the user's request), fixed or per call. */
  input?: PerCall<TextOrJson, A>;
  /** I_o: the agent's output log; default the proposed call itself. */
  output?: PerCall<TextOrJson, A>;
  /** Extra facts for the guard. */
  context?: PerCall<JsonObject, A>;
  /**
   * Keep the token of each held call and present it when the same call (subject, tool, arguments)
   * comes again, so that once a person approved it the retry runs once: InMemoryHeldCalls, or
   * RedisHeldCalls (QueueTransport.heldCalls()) for several processes. Without it, pass the token
   * of the GuardPendingError to the retry yourself (`tool(args, { approvalToken })`).
   */
  heldCalls?: HeldCalls;
  /** How long to wait for the decision (default: the transport's). */
  timeoutMs?: number;
  /** Sees every decision, allowed or not (audit logs, metrics). */
  onDecision?: (decision: Decision, args: A) => void;
}

/** How one call of a guarded tool is made: `approvalToken` retries a held call (GuardPendingError.token). */
export interface GuardedCallOptions {
  approvalToken?: string;
}

export type GuardedTool<A, R> = ((args: A, call?: GuardedCallOptions) => Promise<R>) & { readonly toolName: string };

const resolve = async <T, A>(value: PerCall<T, A> | undefined, args: A): Promise<T | undefined> =>
  typeof value === 'function' ? (value as (args: A) => MaybePromise<T>)(args) : value;

/**
 * Wrap an agent's tool so every call is checked first, as the action
 * `{ kind: 'tool_call', tool, args }`. The tool runs only on `allow`, with the arguments the
 * decision allows: `decision.redacted.args` when the policy redacted PII from them, else its own.
 * A `deny` throws GuardDeniedError with the reasons and the decision (a person's rejection of a
 * held call too: the reasons say who and why). A `pending` (held for approval) throws
 * GuardPendingError with the approval token, its id and expiry; once a person approved the call,
 * retrying it with the token (`{ approvalToken }`, or by itself with `heldCalls`) runs it once, and
 * a further retry is held afresh. A retry whose token nobody decided yet throws GuardPendingError
 * again. If no decision can be had (timeout, gateway down) the error propagates and the tool does
 * not run.
 */
export function guardTool<A extends JsonObject, R>(fn: (args: A) => MaybePromise<R>, options: GuardToolOptions<A>): GuardedTool<A, R> {
  const guarded = async (args: A, call: GuardedCallOptions = {}): Promise<R> => {
    const callArgs = (args ?? {}) as A;
    const [subject, input, output, context] = await Promise.all([
      resolve(options.subject, callArgs),
      resolve(options.input, callArgs),
      resolve(options.output, callArgs),
      resolve(options.context, callArgs),
    ]);
    const { approvalToken: contextToken, ...otherContext } = context ?? {};
    const approvalToken = call.approvalToken ?? (typeof contextToken === 'string' ? contextToken : undefined);
    const job: GuardJobInput = {
      policy: options.policy,
      input: input ?? '',
      output: output ?? { tool: options.toolName, args: callArgs },
      action: { kind: 'tool_call', tool: options.toolName, args: callArgs },
      ...(subject ? { subject } : {}),
      ...(context ? { context: otherContext } : {}),
    };
    const outcome = await checkGuardedCall({
      check: (checked) => options.transport.check(checked, options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      job,
      subjectId: subject?.id ?? '',
      tool: options.toolName,
      args: callArgs,
      ...(approvalToken !== undefined ? { approvalToken } : {}),
      ...(options.heldCalls ? { heldCalls: options.heldCalls } : {}),
    });
    options.onDecision?.(outcome.decision, callArgs);
    if (outcome.kind === 'pending') throw new GuardPendingError(options.toolName, outcome.held, outcome.decision);
    if (outcome.kind === 'deny') throw new GuardDeniedError(options.toolName, outcome.reasons.length ? outcome.reasons : ['denied by the guard'], outcome.decision);
    // The arguments the guard allowed: the redacted ones when the policy redacts PII from
    // tool-call arguments (`pii: redact` on the input filters), never the proposed ones.
    return fn(outcome.args as A);
  };
  return Object.assign(guarded, { toolName: options.toolName });
}
