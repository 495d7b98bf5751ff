import { GuardDeniedError } from '@guardagent/errors';
import type { Decision, GuardJobInput, JsonObject, PolicyInput, Subject, TextOrJson } from '@guardagent/schemas';
import type { GuardTransport } from './guard-transport';

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
  /** Extra facts for the guard (an `approvalToken` for a held call goes here). */
  context?: PerCall<JsonObject, A>;
  /** How long to wait for the decision (default: the transport's). */
  timeoutMs?: number;
  /** Sees every decision, allowed or not (audit logs, metrics). */
  onDecision?: (decision: Decision, args: A) => void;
}

export type GuardedTool<A, R> = ((args: A) => Promise<R>) & { readonly toolName: string };

const resolve = async <T, A>(value: PerCall<T, A> | undefined, args: A): Promise<T | undefined> =>
  typeof value === 'function' ? (value as (args: A) => MaybePromise<T>)(args) : value;

/**
 * Wrap an agent's tool so every call is checked first, as the action
 * `{ kind: 'tool_call', tool, args }`. The tool runs only on `allow`, with the arguments the
 * decision allows: `decision.redacted.args` when the policy redacted PII from them, else its own.
 * A `deny` or a `pending`
 * (held for approval) throws GuardDeniedError with the reasons and the decision (whose
 * `approval.token`, once approved, goes into `context.approvalToken` of the retried call).
 * If no decision can be had (timeout, gateway down) the error propagates and the tool does not run.
 */
export function guardTool<A extends JsonObject, R>(fn: (args: A) => MaybePromise<R>, options: GuardToolOptions<A>): GuardedTool<A, R> {
  const guarded = async (args: A): Promise<R> => {
    const callArgs = (args ?? {}) as A;
    const [subject, input, output, context] = await Promise.all([
      resolve(options.subject, callArgs),
      resolve(options.input, callArgs),
      resolve(options.output, callArgs),
      resolve(options.context, callArgs),
    ]);
    const job: GuardJobInput = {
      policy: options.policy,
      input: input ?? '',
      output: output ?? { tool: options.toolName, args: callArgs },
      action: { kind: 'tool_call', tool: options.toolName, args: callArgs },
      ...(subject ? { subject } : {}),
      ...(context ? { context } : {}),
    };
    const decision = await options.transport.check(job, options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {});
    options.onDecision?.(decision, callArgs);
    if (decision.decision !== 'allow') {
      const reasons = decision.reasons.length
        ? decision.reasons
        : [decision.decision === 'pending' ? 'the call is held for approval' : 'denied by the guard'];
      throw new GuardDeniedError(options.toolName, reasons, decision);
    }
    // The arguments the guard allowed: the redacted ones when the policy redacts PII from
    // tool-call arguments (`pii: redact` on the input filters), never the proposed ones.
    return fn((decision.redacted?.args as A | undefined) ?? callArgs);
  };
  return Object.assign(guarded, { toolName: options.toolName });
}
