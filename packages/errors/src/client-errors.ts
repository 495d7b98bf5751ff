import { GuardAgentError } from './guard-agent-error';

/** `check()` did not get a decision within its timeout. The job goes on; read it later by id. */
export class CheckTimeoutError extends GuardAgentError {
  readonly code = 'CHECK_TIMEOUT';
  readonly jobId: string;
  constructor(jobId: string, timeoutMs: number) {
    super(`No decision for job ${jobId} within ${timeoutMs} ms; read it later with result('${jobId}')`, {
      jobId,
      timeoutMs,
    });
    this.jobId = jobId;
  }
}

/** Thrown by guarded tools when the guard denies a call (a held one throws GuardPendingError). */
export class GuardDeniedError extends GuardAgentError {
  readonly code = 'GUARD_DENIED';
  readonly reasons: string[];
  readonly decision: unknown;
  constructor(tool: string, reasons: string[], decision: unknown) {
    super(`Guard denied ${tool}: ${reasons.join('; ') || 'no reason given'}`, { tool, reasons });
    this.reasons = reasons;
    this.decision = decision;
  }
}

/**
 * Thrown by guarded tools when the guard holds a call for a person's approval (`decision:
 * pending`), and when a retry presents a token nobody has decided yet. Never a denial: once an
 * approver approves it (the API, `guardagent approve`, or the agent SDK's own approval flow), the
 * identical call retried with `token` runs once. `approvalId` names it in approval lists, webhooks
 * and URLs; the token itself stays out of `message` and `details`.
 */
export class GuardPendingError extends GuardAgentError {
  readonly code = 'GUARD_PENDING';
  readonly tool: string;
  readonly reasons: string[];
  /** The single-use approval token to present on the retry (`context.approvalToken`). */
  readonly token: string;
  readonly approvalId: string | null;
  /** ISO time after which the call can be neither approved nor run (null when not known). */
  readonly expiresAt: string | null;
  readonly decision: unknown;
  constructor(tool: string, held: { token: string; id?: string | null; expiresAt?: string | null; reasons: string[] }, decision: unknown) {
    const until = held.expiresAt ? `, until ${held.expiresAt}` : '';
    super(`GuardAgent held the call to '${tool}' for approval: ${held.reasons.join('; ') || 'an approver must approve it'} (approval ${held.id ?? 'unknown'}${until})`, {
      tool,
      reasons: held.reasons,
      approvalId: held.id ?? null,
      expiresAt: held.expiresAt ?? null,
    });
    this.tool = tool;
    this.reasons = held.reasons;
    this.token = held.token;
    this.approvalId = held.id ?? null;
    this.expiresAt = held.expiresAt ?? null;
    this.decision = decision;
  }
}

/** Operation needs a Redis / HTTP connection that is not there. `cause`: the error underneath, if any. */
export class UnavailableError extends GuardAgentError {
  readonly code = 'UNAVAILABLE';
  constructor(message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, details, options);
  }
}

/** Missing or wrong credentials. */
export class UnauthorizedError extends GuardAgentError {
  readonly code = 'UNAUTHORIZED';
  constructor(message = 'Missing or invalid API key') {
    super(message);
  }
}

/** Configuration (environment, flags) is invalid. */
export class ConfigError extends GuardAgentError {
  readonly code = 'CONFIG_INVALID';
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(message, details);
  }
}
