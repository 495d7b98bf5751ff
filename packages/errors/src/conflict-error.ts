import { GuardAgentError } from './guard-agent-error';

/** The request conflicts with what exists (a tenant id already taken, a key changed while rotated). */
export class ConflictError extends GuardAgentError {
  readonly code = 'CONFLICT';
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(message, details);
  }
}
