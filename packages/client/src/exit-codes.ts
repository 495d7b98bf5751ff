import { GuardAgentError, GuardDeniedError } from '@guardagent/errors';
import type { Decision } from '@guardagent/schemas';

/**
 * The exit codes of `guardagent`, of programs built on the SDKs and of the examples: one table,
 * the README's ("Exit codes"), which a test compares with this one. A code means the same thing
 * for every command; each command's help says which it uses.
 */
export const EXIT_CODES = {
  /** Allowed; or the command did what it was asked (stored, listed, every test and lint passed). */
  OK: 0,
  /** Denied; or the answer is no: a policy test case did not match, lint found problems, versions differ, a program failed verification, an approval was refused. */
  DENIED: 1,
  /** The command could not run as given: a bad option, an unreadable or invalid file, a request the server refused (400, 401, 403, 404, 409, 413), missing configuration. Fix it and run again. */
  INVALID: 2,
  /** The guard could not decide (status guard_error; a batch: some lines). */
  GUARD_ERROR: 3,
  /** Held for approval (decision pending). */
  PENDING: 4,
  /** A replay with --fail-on-flip: a decision flipped. */
  FLIPPED: 5,
  /** Could not reach or finish: Redis or the gateway unavailable, a timeout, no decision arriving, a quota to wait for (429). Run again. */
  UNAVAILABLE: 6,
  /** An unexpected error (a bug: please report it with the message). */
  INTERNAL: 70,
  /** Interrupted (Ctrl-C); commands that resume (batch, replay) continue where they stopped when run again. */
  INTERRUPTED: 130,
} as const;

export type ExitCodeName = keyof typeof EXIT_CODES;
export type ExitCode = (typeof EXIT_CODES)[ExitCodeName];

/** The exit code of a decision: allow 0, deny 1, pending 4; a guard that could not decide (and did not let the call through) 3. */
export function exitCodeOfDecision(decision: Pick<Decision, 'decision' | 'status'>): ExitCode {
  if (decision.decision === 'allow') return EXIT_CODES.OK;
  if (decision.status === 'guard_error') return EXIT_CODES.GUARD_ERROR;
  return decision.decision === 'pending' ? EXIT_CODES.PENDING : EXIT_CODES.DENIED;
}

/** Error codes after which running again later may work (the rest need the call, the file or the configuration fixed). */
const TRANSIENT_CODES: ReadonlySet<string> = new Set(['UNAVAILABLE', 'CHECK_TIMEOUT', 'STORE_FULL', 'QUOTA_EXCEEDED', 'REQUEST_TIMEOUT', 'BATCH_STALLED', 'REPLAY_STALLED', 'LLM_REQUEST_FAILED']);

/** Whether running again later may work after an error with this code (Redis or the gateway unavailable, a timeout, a quota). */
export function isTransientErrorCode(code: string): boolean {
  return TRANSIENT_CODES.has(code);
}

function isDecisionLike(value: unknown): value is Pick<Decision, 'decision' | 'status'> {
  return typeof value === 'object' && value !== null && typeof (value as { decision?: unknown }).decision === 'string';
}

const CONNECTION_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/**
 * The exit code for an error that ended a command: a guarded tool's refusal as its decision (deny 1,
 * pending 4, guard_error 3), transient 6, other GuardAgent errors 2, anything else 70.
 */
export function exitCodeOfError(error: unknown): ExitCode {
  if (error instanceof GuardDeniedError && isDecisionLike(error.decision)) return exitCodeOfDecision(error.decision);
  if (error instanceof GuardAgentError) {
    if (isTransientErrorCode(error.code)) return EXIT_CODES.UNAVAILABLE;
    const status = error.details.status;
    if (typeof status === 'number' && status >= 500) return EXIT_CODES.UNAVAILABLE;
    return EXIT_CODES.INVALID;
  }
  // fetch's and Node's connection failures (a gateway or Redis that is not there).
  const code = (error as { code?: unknown; cause?: { code?: unknown } } | null)?.cause?.code ?? (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('UND_ERR_'))) return EXIT_CODES.UNAVAILABLE;
  return EXIT_CODES.INTERNAL;
}
