import { GuardAgentError } from '@guardagent/errors';

/** The process running a replay stopped before it finished (its record ends `interrupted`). */
export class ReplayInterruptedError extends GuardAgentError {
  readonly code = 'REPLAY_INTERRUPTED';

  constructor(why: string) {
    super(`the replay was interrupted: ${why}; start another`);
  }
}
