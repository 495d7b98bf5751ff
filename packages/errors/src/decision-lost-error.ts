import { GuardAgentError } from './guard-agent-error';

/**
 * A check that was decided, but whose decision Redis no longer has: Redis was rolled back between
 * storing the decision and completing the job (an OS crash under AOF `everysec`, a failover to a
 * replica that had not received it). The decision cannot be read back; what the caller heard
 * when it was announced is the answer, and a new check is needed for one now.
 */
export class DecisionLostError extends GuardAgentError {
  readonly code = 'DECISION_LOST';
  constructor(id: string) {
    super(
      `check '${id}' was decided, but Redis no longer has its decision (lost in a Redis crash or failover; see docs/operations.md, "Durability levels")`,
      { kind: 'check', id },
    );
  }
}
