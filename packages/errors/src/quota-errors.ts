import { GuardAgentError } from './guard-agent-error';

/** A write would take a tenant's stored items past a configured cap; nothing was written. */
export class QuotaExceededError extends GuardAgentError {
  readonly code = 'QUOTA_EXCEEDED';
  constructor(what: string, limit: number, details: Record<string, unknown> = {}) {
    super(`${what}: the limit is ${limit}`, { limit, ...details });
  }
}

/**
 * A request (or a batch, or one chunk of it) larger than the gateway or a quota can ever take:
 * waiting would not help. `details` names the limit (`maxBytes`, `maxJobs`, or `quota`).
 */
export class PayloadTooLargeError extends GuardAgentError {
  readonly code = 'PAYLOAD_TOO_LARGE';
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(message, details);
  }
}
