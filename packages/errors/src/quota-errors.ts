import { GuardAgentError } from './guard-agent-error';

/** A write would take a tenant's stored items past a configured cap; nothing was written. */
export class QuotaExceededError extends GuardAgentError {
  readonly code = 'QUOTA_EXCEEDED';
  constructor(what: string, limit: number, details: Record<string, unknown> = {}) {
    super(`${what}: the limit is ${limit}`, { limit, ...details });
  }
}
