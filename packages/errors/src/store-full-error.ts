import { GuardAgentError } from './guard-agent-error';

/**
 * Redis is (nearly) at its `maxmemory`: a job accepted now could not be answered, because the
 * answer is a Redis write too. Nothing was queued; retry after `retryAfterSeconds`.
 */
export class StoreFullError extends GuardAgentError {
  readonly code = 'STORE_FULL';
  constructor(message: string, details: { usedBytes?: number; maxBytes?: number; retryAfterSeconds: number }) {
    super(message, details);
  }
}
