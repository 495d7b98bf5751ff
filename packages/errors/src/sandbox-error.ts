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
