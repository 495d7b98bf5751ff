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

/** Thrown by guarded tools when the guard denies (or holds for approval) a call. */
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
