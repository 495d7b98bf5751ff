import { GuardAgentError } from './guard-agent-error';

/**
 * An idempotency key came back with a different job (other input, tool, arguments, subject or
 * policy). Answering with the earlier decision would hand one call's verdict to another.
 */
export class IdempotencyConflictError extends GuardAgentError {
  readonly code = 'IDEMPOTENCY_CONFLICT';
  constructor(idempotencyKey: string) {
    super(`idempotency key '${idempotencyKey.slice(0, 64)}' was used for a different job; use a new key for a new job`, {});
  }
}
