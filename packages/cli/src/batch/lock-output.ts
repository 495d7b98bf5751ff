import lockfile from 'proper-lockfile';
import { BatchOutputLockedError } from './batch-output-locked-error';

/** A held lock is refreshed this often, and counts as abandoned this long after its last refresh. */
const OUTPUT_LOCK_REFRESH_MS = 2_000;
/** A lock not refreshed for this long is a killed run's: another run takes it over. */
export const OUTPUT_LOCK_STALE_MS = 10_000;
/** How long a run waits for a held lock: past the stale time, so a killed run's lock is taken over. */
const WAIT_RETRIES = 6;
const WAIT_STEP_MS = 2_000;
export const OUTPUT_LOCK_WAIT_MS = WAIT_RETRIES * WAIT_STEP_MS;

export interface LockOutputOptions {
  /** Told once, before waiting, that another run holds the lock (or a killed one left it). */
  onWait?: () => void;
  /** Told when the lock could not be refreshed (file system failure, or taken as stale): stop the run. */
  onLost: (error: Error) => void;
}

/**
 * Take the exclusive lock on a batch's --out file (`<file>.lock`, a directory created atomically),
 * so that a second run on the same file refuses instead of deciding and writing every id again.
 * A run killed with SIGKILL leaves its lock behind; it goes stale 10 s after its last refresh, and
 * the next run waits that long before taking it over. Returns the release function.
 */
export async function lockOutput(file: string, options: LockOutputOptions): Promise<() => Promise<void>> {
  const lockOptions = { realpath: false, stale: OUTPUT_LOCK_STALE_MS, update: OUTPUT_LOCK_REFRESH_MS, onCompromised: options.onLost };
  try {
    return await lockfile.lock(file, lockOptions);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
  }
  options.onWait?.();
  try {
    return await lockfile.lock(file, { ...lockOptions, retries: { retries: WAIT_RETRIES, factor: 1, minTimeout: WAIT_STEP_MS, maxTimeout: WAIT_STEP_MS } });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new BatchOutputLockedError(file, OUTPUT_LOCK_STALE_MS);
    throw error;
  }
}
