// Errors and the SDK's types through its entry: the packed proxy leaves `@guardagent/client` to the
// user's project (a peer), so the errors a transport throws are the classes tested here.
import {
  GuardAgentError,
  MAX_TEXT_CHARS,
  QuotaExceededError,
  ValidationError,
  checkGuardedCall,
  type AdmitJobs,
  type CheckOptions,
  type Decision,
  type GuardJobInput,
  type HeldCalls,
  type JsonObject,
  type PolicyInput,
  type SubjectInput,
} from '@guardagent/client';
import type { InputFilters } from './inspect-fields';

/** What the proxy knows of the conversation around a call (it never sees the model's messages). */
export interface CallContext {
  /** The MCP client's name and version, from its `initialize`. */
  client?: { name: string; version: string };
  /** Which upstream server the tool belongs to (empty with a single unnamed upstream). */
  upstream: string;
  /** The session's recent tool calls, oldest first: name and what GuardAgent decided. */
  recentCalls: readonly { tool: string; decision: string }[];
}

/** The guard's answer for one tool call, as the proxy acts on it. */
export type CallVerdict =
  /** `args`: what to forward, the redacted arguments when the policy redacts PII from them. */
  | { outcome: 'forward'; decision: Decision; args: JsonObject }
  | { outcome: 'deny'; decision: Decision | null; reasons: string[] }
  /** `waiting`: a retry presented the token of this call held before, and nobody has decided it yet. */
  | { outcome: 'pending'; decision: Decision; token: string; id: string; expiresAt: string | null; reasons: string[]; waiting: boolean };

/**
 * The guard's answer for one text the upstream returned. `inspected` says the guard read the text
 * and refused it (false: it could not be inspected at all, e.g. no decision or too large).
 */
export type TextVerdict =
  | { outcome: 'pass'; text: string; redacted: boolean }
  | { outcome: 'block'; reasons: string[]; inspected: boolean };

/**
 * Admission of a tenant's guard jobs against its quotas, as the gateway admits its checks
 * (`@guardagent/quotas` CheckAdmission): both throw QuotaExceededError when the jobs may not be
 * queued, and nothing is queued then.
 */
export interface JobAdmission {
  /** Admit now or throw. */
  admit(jobIds: string[]): Promise<void>;
  /** Wait up to `maxWaitMs` for room (the bucket refills), then admit or throw. */
  admitWaiting(jobIds: string[], maxWaitMs: number): Promise<void>;
}

/** The transport's `check`, as QueueTransport takes it: `admit` runs before anything is queued. */
export interface CheckingTransport {
  check(job: GuardJobInput, options?: CheckOptions & { admit?: AdmitJobs }): Promise<Decision>;
}

export interface CallGuardOptions {
  transport: CheckingTransport;
  /** The whole policy (sent inline, so each tenant needs no registration step) or a registered id. */
  policy: PolicyInput | string;
  subject: SubjectInput;
  /**
   * The tokens of the calls held, per subject and canonical tool + arguments: RedisHeldCalls (per
   * tenant) so that a reconnected client, or another proxy process, presents the same token.
   */
  heldCalls: HeldCalls;
  /** How long to wait for a decision (default 10 s); past it the call is undecided. */
  timeoutMs?: number;
  /**
   * The tenant's quotas. A call's own check is admitted at once or refused (nothing forwarded);
   * the checks of what the upstream returns wait for room up to `timeoutMs`, then withhold it.
   */
  admission?: JobAdmission;
}

/** A refusal by the tenant's quotas, said plainly, with when to retry. */
function quotaMessage(error: QuotaExceededError): string {
  const retry = typeof error.details.retryAfterSeconds === 'number' ? `; retry in ${error.details.retryAfterSeconds} s` : '';
  return `the tenant's check quota refused it (QUOTA_EXCEEDED: ${error.message})${retry}`;
}

const describeError = (error: unknown): string =>
  error instanceof GuardAgentError ? `${error.code}: ${error.message}` : `UNAVAILABLE: ${(error as Error)?.message ?? String(error)}`;

/**
 * Turns MCP tool calls and tool results into guard jobs on the normal queues and reads the
 * decisions. Approval tokens of held calls are remembered (HeldCalls) per subject and canonical
 * tool + args, and presented when the same call comes again.
 */
export class CallGuard {
  /** The policy's input filters, when the policy is given whole (to say where a refused text's finding is). */
  readonly inputFilters: InputFilters;

  constructor(private readonly options: CallGuardOptions) {
    const input = typeof options.policy === 'object' ? options.policy.rails?.input : undefined;
    this.inputFilters = {
      ...(input?.pii ? { piiKinds: input.pii.kinds ?? ['email', 'phone', 'card', 'iban', 'ssn', 'ip', 'secret'] } : {}),
      ...(input?.injection ? { injectionThreshold: input.injection.threshold ?? 0.5 } : {}),
    };
  }

  get subjectId(): string {
    return this.options.subject.id;
  }

  private get timeoutMs(): number {
    return this.options.timeoutMs ?? 10_000;
  }

  /** `waiting`: the job may wait for the tenant's quota to have room (what an upstream returned); otherwise it is admitted now or refused. */
  private async decide(job: GuardJobInput, waiting: boolean): Promise<Decision> {
    const { admission } = this.options;
    const admit: AdmitJobs | undefined = admission ? (ids) => (waiting ? admission.admitWaiting(ids, this.timeoutMs) : admission.admit(ids)) : undefined;
    return this.options.transport.check(job, { timeoutMs: this.timeoutMs, ...(admit ? { admit } : {}) });
  }

  async checkCall(tool: string, args: JsonObject, context: CallContext): Promise<CallVerdict> {
    const { subject, heldCalls } = this.options;
    const job: GuardJobInput = {
      policy: this.options.policy,
      input: '',
      output: { tool, args },
      action: { kind: 'tool_call', tool, args },
      subject,
      context: {
        mcp: {
          ...(context.client ? { client: { name: context.client.name, version: context.client.version } } : {}),
          upstream: context.upstream,
          recentCalls: context.recentCalls.map((c) => ({ tool: c.tool, decision: c.decision })),
        },
      },
    };
    try {
      // The token of the same call held before is presented (the client cannot): approved, it runs once.
      const outcome = await checkGuardedCall({ check: (checked) => this.decide(checked, false), job, subjectId: subject.id, tool, args, heldCalls });
      const reasons = outcome.decision.reasons.length > 0 ? outcome.decision.reasons : [`${outcome.decision.decision} by the guard`];
      if (outcome.kind === 'allow') return { outcome: 'forward', decision: outcome.decision, args: outcome.args };
      if (outcome.kind === 'pending') {
        const { token, id, expiresAt } = outcome.held;
        return { outcome: 'pending', decision: outcome.decision, token, id, expiresAt, reasons: outcome.held.reasons.length > 0 ? outcome.held.reasons : reasons, waiting: outcome.decision.decision !== 'pending' };
      }
      return { outcome: 'deny', decision: outcome.decision, reasons };
    } catch (error) {
      if (error instanceof QuotaExceededError) {
        return { outcome: 'deny', decision: null, reasons: [`${quotaMessage(error)}; the call was not forwarded`] };
      }
      // A call the job schema rejects (e.g. arguments past the size limits) is malformed, not
      // undecided: it is refused whatever the failMode.
      if (error instanceof ValidationError) return { outcome: 'deny', decision: null, reasons: [`the call is not a valid guard job: ${error.message}`] };
      // No decision at all (no executor answered, Redis down) is an infrastructure failure: the
      // policy's failMode covers only the GuardAgent layer failing inside a decision, so the call
      // is refused whatever it says (docs/architecture.md, failure semantics).
      return { outcome: 'deny', decision: null, reasons: [`GuardAgent could not decide (${describeError(error)}); the call was not forwarded`] };
    }
  }

  /**
   * Passes one text an upstream sent through the policy's filters at the boundary into the model
   * (a `message` of role `tool`): PII redaction and prompt-injection detection. `label` names
   * the text in reasons ("the result of 'read_file'"); `context` goes into the job's context.
   */
  async checkText(label: string, text: string, context: JsonObject): Promise<TextVerdict> {
    if (text.length > MAX_TEXT_CHARS) return { outcome: 'block', inspected: false, reasons: [`${label} is larger than ${MAX_TEXT_CHARS} characters and cannot be inspected`] };
    let decision: Decision;
    try {
      decision = await this.decide(
        {
          policy: this.options.policy,
          input: '',
          output: '',
          action: { kind: 'message', role: 'tool', text },
          subject: this.options.subject,
          context,
        },
        true,
      );
    } catch (error) {
      const why = error instanceof QuotaExceededError ? quotaMessage(error) : `GuardAgent could not inspect it (${describeError(error)})`;
      return { outcome: 'block', inspected: false, reasons: [`${label} was withheld: ${why}`] };
    }
    if (decision.decision !== 'allow') return { outcome: 'block', inspected: true, reasons: decision.reasons.length ? decision.reasons : ['blocked by the guard'] };
    const redacted = decision.redacted?.input;
    return redacted !== undefined ? { outcome: 'pass', text: redacted, redacted: true } : { outcome: 'pass', text, redacted: false };
  }
}
