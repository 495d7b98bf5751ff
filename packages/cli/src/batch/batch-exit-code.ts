import { EXIT_CODES, type ExitCode } from '@guardagent/client';
import type { BatchResult } from './batch-runner';

/**
 * 0: every line decided (denials and pending approvals are fine); 3 (GUARD_ERROR): every line
 * decided but the guard could not decide some (guard_error: look at their `error`), in this run or
 * an earlier one that this run resumed; 2 (INVALID): a bad input line (processing stopped before
 * it); 130: interrupted. Stalls (6, UNAVAILABLE) and other failures are thrown.
 */
export function batchExitCode(result: BatchResult): ExitCode {
  if (result.inputError) return EXIT_CODES.INVALID;
  if (result.interrupted) return EXIT_CODES.INTERRUPTED;
  return result.counts.guardErrors + result.counts.skippedGuardErrors > 0 ? EXIT_CODES.GUARD_ERROR : EXIT_CODES.OK;
}
