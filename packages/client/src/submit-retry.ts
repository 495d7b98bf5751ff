/** Waits before the 2nd, 3rd, ... try of a submit whose answer was lost. */
const SUBMIT_RETRY_DELAYS_MS = [100, 400, 1600];

/** How many times a submit is tried when its answer is lost, unless the caller says otherwise. */
export const DEFAULT_SUBMIT_ATTEMPTS = 4;

export interface SubmitRetryOptions {
  /** Tries in all (at least 1). */
  attempts: number;
  /** Whether an error means the answer was lost (the write may or may not have happened). */
  isLost: (error: unknown) => boolean;
  /** Checked before each retry: a closed transport stops trying. */
  stopped: () => boolean;
  /** Told of each error that is about to be retried (`attempt` is the try that failed). */
  onRetry?: (error: unknown, attempt: number) => void;
  /** How long the error itself asks to wait (an HTTP Retry-After), ms; the longer of it and the backoff is waited, at most MAX_RETRY_AFTER_MS. */
  retryAfterMs?: (error: unknown) => number | null;
}

/** The most a server's Retry-After may hold one retry back. */
const MAX_RETRY_AFTER_MS = 10_000;

/**
 * Run `write` again after an error that lost its answer. Only for writes that are idempotent by
 * construction: the job id is chosen before the first try, so a retry joins the job the first
 * try may have queued instead of queueing a second one.
 */
export async function withSubmitRetries<T>(write: () => Promise<T>, options: SubmitRetryOptions): Promise<T> {
  const attempts = Math.max(1, options.attempts);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write();
    } catch (error) {
      if (!options.isLost(error) || attempt >= attempts || options.stopped()) throw error;
      options.onRetry?.(error, attempt);
      const backoff = SUBMIT_RETRY_DELAYS_MS[Math.min(attempt - 1, SUBMIT_RETRY_DELAYS_MS.length - 1)]!;
      const asked = options.retryAfterMs?.(error) ?? 0;
      const delay = Math.max(backoff, Math.min(asked, MAX_RETRY_AFTER_MS));
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
