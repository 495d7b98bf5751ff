import { GuardAgentError } from '@guardagent/errors';

/** Another run is writing the same --out file (it holds the file's lock). */
export class BatchOutputLockedError extends GuardAgentError {
  readonly code = 'BATCH_OUTPUT_LOCKED';

  constructor(file: string, staleMs: number) {
    super(
      `${file} is being written by another guardagent batch run (its lock ${file}.lock was kept fresh for longer ` +
        `than the ${Math.round(staleMs / 1000)} s after which a killed run's lock is taken over). Wait for that run to end, or give another --out.`,
      { file },
    );
  }
}
