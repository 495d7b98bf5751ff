import { GuardAgentError } from './guard-agent-error';

export type SandboxErrorKind =
  | 'syntax'
  | 'reference'
  | 'type'
  | 'thrown'
  | 'timeout'
  | 'memory'
  | 'invalid-return'
  | 'result-too-large'
  /** The sandbox worker process running the guard died (V8 fatal error, segfault, OOM kill). */
  | 'crashed'
  /** The sandbox worker process did not answer by the wall-clock deadline and was killed. */
  | 'hung'
  /**
   * Not run: the tenant, or this version of its guard, killed or hung sandbox workers more often
   * than its crash budget allows within the window, and its runs end at once until the window
   * has passed (see SandboxQuarantinedError).
   */
  | 'quarantined'
  | 'internal';

/** Guard code failed to produce a valid verdict. The debugger sees `kind` and `message`. */
export class SandboxExecutionError extends GuardAgentError {
  readonly code = 'GUARD_CODE_FAILED';
  readonly kind: SandboxErrorKind;
  constructor(kind: SandboxErrorKind, message: string) {
    super(message, { kind });
    this.kind = kind;
  }
}

/** What a quarantine covers: every run of the tenant, or the runs of one version of its guard. */
export type QuarantineScope = 'tenant' | 'version';

/**
 * A guard run that was not started: its tenant (scope `tenant`) or this version of its guard
 * (scope `version`) killed or hung `crashes` sandbox workers within the crash budget's window.
 * Until `untilMs` (epoch ms) its runs end at once, fail-closed under any `failMode`, without
 * touching a worker, so other tenants keep their share of the pool.
 */
export class SandboxQuarantinedError extends GuardAgentError {
  readonly code = 'SANDBOX_QUARANTINED';
  constructor(details: { tenant: string; scope: QuarantineScope; crashes: number; windowMs: number; untilMs: number }) {
    const what = details.scope === 'tenant' ? `tenant '${details.tenant}'` : `this guard version of tenant '${details.tenant}'`;
    super(
      `${what} killed or hung ${details.crashes} sandbox workers within ${Math.round(details.windowMs / 1000)} s: its guard runs are refused until ${new Date(details.untilMs).toISOString()}`,
      details,
    );
  }
}

/**
 * The decision code of a sandbox failure: the worker-level failures have their own codes (so an
 * operator can tell a guard that kills workers from one that merely throws), every fault of the
 * guard code itself is GUARD_CODE_FAILED.
 */
export function sandboxErrorCode(kind: SandboxErrorKind): 'SANDBOX_CRASHED' | 'SANDBOX_HUNG' | 'SANDBOX_QUARANTINED' | 'GUARD_CODE_FAILED' {
  if (kind === 'crashed') return 'SANDBOX_CRASHED';
  if (kind === 'hung') return 'SANDBOX_HUNG';
  if (kind === 'quarantined') return 'SANDBOX_QUARANTINED';
  return 'GUARD_CODE_FAILED';
}
