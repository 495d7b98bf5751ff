import { Option, type Command } from 'commander';
import { ValidationError } from '@guardagent/errors';
import { readPolicyFile } from '../policy-file';
import { EXIT_CODES } from '@guardagent/client';
import { DEFAULT_LOCK_DURATION_MS, DEFAULT_STALLED_INTERVAL_MS } from '@guardagent/config';
import { OUTPUT_LOCK_STALE_MS } from '../batch/lock-output';
import { runBatchCommand } from '../batch/run-batch-command';

interface BatchOptions {
  policy: string;
  in: string;
  out: string;
  concurrency: string;
  remote?: boolean;
  progress?: boolean;
  idleTimeout: string;
  reportMemory?: boolean;
}

/** Defaults of the batch options (and replay's), as the help states them. */
export const DEFAULT_BATCH_CONCURRENCY = 2000;
export const DEFAULT_IDLE_TIMEOUT_MS = 600_000;

const seconds = (ms: number) => `${ms / 1000} s`;

/** The batch command's closing help: formats, resuming and exit codes, with the defaults the code uses. */
export function batchHelp(): string {
  return `
Input: JSONL, one job per line: {"id": "...", "input": ..., "output": ..., "context"?, "subject"?, "action"?}.
  Ids are required and unique; the policy comes from --policy (a line may not carry one).
Output: one line per job, in completion order: {"id","decision","status","reasons","rules","layer","mode","details"}
  (plus "error" when status is guard_error). Appended and flushed as decisions arrive.
Resuming: run the same command again. Ids already in --out are skipped; an unfinished last line left
  by a killed run is cut off first. Memory stays bounded for any input size, except one set of the
  file's ids (to skip decided ones and refuse duplicates). Jobs a killed run left in the queues
  are not done twice: their decisions are picked up from Redis (jobs its own workers were running
  are taken over by other workers within ${seconds(DEFAULT_LOCK_DURATION_MS + DEFAULT_STALLED_INTERVAL_MS)}: the lock, GUARDAGENT_LOCK_DURATION_MS, default
  ${seconds(DEFAULT_LOCK_DURATION_MS)}, plus the stalled-job check, GUARDAGENT_STALLED_INTERVAL_MS, default ${seconds(DEFAULT_STALLED_INTERVAL_MS)}).

Exit codes (the README's table; the same for every command):
  ${EXIT_CODES.OK}    every line decided (denials and pending approvals are fine)
  ${EXIT_CODES.GUARD_ERROR}    every line decided, but the guard could not decide some (status guard_error; see their "error"),
       counting lines an earlier run wrote to --out
  ${EXIT_CODES.INVALID}    unreadable or invalid input: a bad line stops the run before it (the message names the line
       and field; decisions of earlier lines are kept, so fix the line and run again to resume),
       an invalid policy, an --out file that is not a decisions file, or an --out file another
       run is writing (BATCH_OUTPUT_LOCKED: one run per --out, locked by <out>.lock; the lock
       of a killed run is taken over after ${seconds(OUTPUT_LOCK_STALE_MS)})
  ${EXIT_CODES.UNAVAILABLE}    the run could not go on: no decision arrived for --idle-timeout (no workers running?), or
       Redis failed; decisions written so far are kept: run again to resume
  ${EXIT_CODES.INTERRUPTED}  interrupted (Ctrl-C); run again to resume
`;
}

export function registerBatch(program: Command): void {
  program
    .command('batch')
    .description("moderate an operator's own logs in bulk: every JSONL job through the real pipeline, decisions to a JSONL file")
    .requiredOption('--policy <file>', 'policy file (YAML/JSON); registered, and its program verified if it has one')
    .requiredOption('--in <file>', 'jobs, one JSON object per line')
    .requiredOption('--out <file>', 'decisions, one JSON object per line (appended; resumable)')
    .option('--concurrency <n>', 'most jobs submitted but not yet decided', String(DEFAULT_BATCH_CONCURRENCY))
    .option('--remote', 'use workers already running on REDIS_URL instead of starting them here')
    .option('--progress', 'report progress even when stderr is not a terminal (a line every few seconds)')
    .option('--idle-timeout <ms>', `give up (exit ${EXIT_CODES.UNAVAILABLE}) when nothing is decided for this long`, String(DEFAULT_IDLE_TIMEOUT_MS))
    .addOption(new Option('--report-memory', 'print peak RSS in the summary').hideHelp())
    .addHelpText('after', batchHelp)
    .action(async (options: BatchOptions) => {
      const maxInFlight = positiveInt(options.concurrency, '--concurrency');
      const idleTimeoutMs = positiveInt(options.idleTimeout, '--idle-timeout');
      const { policy } = readPolicyFile(options.policy);
      await runBatchCommand({
        policy,
        inPath: options.in,
        outPath: options.out,
        maxInFlight,
        idleTimeoutMs,
        remote: Boolean(options.remote),
        progress: Boolean(options.progress),
        reportMemory: Boolean(options.reportMemory),
      });
    });
}

export function positiveInt(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new ValidationError('options', [{ path: flag, message: `must be a positive integer, got '${value}'` }]);
  return n;
}
