import type { Command } from 'commander';
import { parsePolicyText } from '@guardagent/schemas';
import { runBatchCommand } from '../batch/run-batch-command';
import { assertReadableFile, readLines } from '../batch/read-lines';
import { diffDecisions, formatDiff, type DecisionSummary } from '@guardagent/replay';
import type { DecisionLine } from '../batch/decision-line';
import { logToJobs } from '../replay/log-to-jobs';
import { readLogEntries } from '../replay/read-log-entries';
import { positiveInt, readPolicyText } from './batch';

/** Exit code of a replay run with --fail-on-flip when a decision flipped. */
export const FLIP_EXIT_CODE = 5;

interface ReplayOptions {
  policy: string;
  from: string;
  out: string;
  json?: boolean;
  failOnFlip?: boolean;
  progress?: boolean;
  concurrency: string;
  idleTimeout: string;
}

const HELP = `
Re-decides recorded traffic (a file from \`guardagent log export\`) with the policy in --policy,
through the normal executors and the batch machinery (bounded memory, progress, resumable: run
the same command again after a crash or Ctrl-C), then prints a decision diff: how many flipped
allow→deny, deny→allow, to or from pending, newly erroring, or kept the decision with other
reasons or rules; broken down by the rule that stops the call and by the subject's role, with
examples. Entries recorded without their job (too large) are counted as not replayable.

It runs on a private Redis and workers of its own. To replay on a running deployment (its own
executors, without exporting the log), use the gateway: POST /v1/policies/{id}/replays.

Files: --out gets the replayed decisions (batch output format); <out>.jobs.jsonl the jobs replayed.
Exit codes: as guardagent batch (0, 1, 2, 3, 130), and ${FLIP_EXIT_CODE} with --fail-on-flip when any decision flipped.
`;

export function registerReplay(program: Command): void {
  program
    .command('replay')
    .description('re-decide recorded traffic with a policy version and print the decision diff')
    .requiredOption('--policy <file>', 'the policy version to replay with (YAML/JSON)')
    .requiredOption('--from <file>', 'recorded decisions: a `guardagent log export` file')
    .requiredOption('--out <file>', 'replayed decisions (appended; resumable)')
    .option('--json', 'print the diff as JSON')
    .option('--fail-on-flip', `exit ${FLIP_EXIT_CODE} when any decision flips (for a policy repository's CI)`)
    .option('--progress', 'report progress even when stderr is not a terminal')
    .option('--concurrency <n>', 'most jobs submitted but not yet decided', '2000')
    .option('--idle-timeout <ms>', 'give up (exit 3) when nothing is decided for this long', '600000')
    .addHelpText('after', HELP)
    .action(async (options: ReplayOptions) => {
      const maxInFlight = positiveInt(options.concurrency, '--concurrency');
      const idleTimeoutMs = positiveInt(options.idleTimeout, '--idle-timeout');
      const policy = parsePolicyText(readPolicyText(options.policy), options.policy);
      await assertReadableFile(options.from);
      const jobsPath = `${options.out}.jobs.jsonl`;
      await logToJobs(options.from, jobsPath);
      const result = await runBatchCommand({
        policy,
        inPath: jobsPath,
        outPath: options.out,
        maxInFlight,
        idleTimeoutMs,
        // Always on a private stack: on a running deployment, registering --policy would make it the
        // live version. A deployment replays its own log with POST /v1/policies/{id}/replays.
        remote: false,
        progress: Boolean(options.progress),
        reportMemory: false,
      });
      // A run that stopped early has set its exit code; its decisions so far are kept for a resume.
      if (!result || result.inputError || result.interrupted) return;
      const replayed = new Map<string, DecisionSummary>();
      for await (const line of readLines(options.out)) {
        if (!line.text.trim()) continue;
        const decision = JSON.parse(line.text) as DecisionLine;
        replayed.set(decision.id, { decision: decision.decision, status: decision.status, reasons: decision.reasons, rules: decision.rules ?? [] });
      }
      const diff = await diffDecisions(readLogEntries(options.from), replayed);
      process.stdout.write(options.json ? `${JSON.stringify(diff, null, 2)}\n` : formatDiff(diff));
      if (options.failOnFlip && diff.flips > 0) process.exitCode = FLIP_EXIT_CODE;
    });
}
