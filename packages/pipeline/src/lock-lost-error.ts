import { GuardAgentError } from '@guardagent/errors';

/**
 * This worker no longer holds the lock of the job it was running (it froze, or lost Redis, for
 * longer than the lock, and another worker took the job over): its answer was not stored.
 */
export class LockLostError extends GuardAgentError {
  readonly code = 'LOCK_LOST';
  constructor(jobId: string) {
    super(`job ${jobId} is no longer this worker's (its lock expired and another worker took it over); its answer was not stored`, { jobId });
  }
}
