import { GuardAgentError } from '@guardagent/errors';

/** A replay's checks are queued but no decision has arrived for too long (no executors, or they are stuck). */
export class ReplayStalledError extends GuardAgentError {
  readonly code = 'REPLAY_STALLED';

  constructor(idleMs: number, inFlight: number) {
    super(`no replayed decision arrived for ${Math.round(idleMs / 1000)} s while ${inFlight} check(s) were queued; are executors running?`, { idleMs, inFlight });
  }
}
