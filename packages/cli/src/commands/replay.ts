import { createWriteStream, existsSync } from 'node:fs';
import { once } from 'node:events';
import { rename } from 'node:fs/promises';
import type { Command } from 'commander';
import { ValidationError } from '@guardagent/errors';
import { DecisionDiffBuilder, formatDiff, type DecisionDiff, type DecisionSummary } from '@guardagent/replay';
import type { DecisionLogEntry, Policy } from '@guardagent/schemas';
import { runBatchCommand } from '../batch/run-batch-command';
import { assertReadableFile, readLines } from '../batch/read-lines';
import type { DecisionLine } from '../batch/decision-line';
import { exportLog } from '../replay/export-log';
import { logToJobs } from '../replay/log-to-jobs';
import { readLogEntries } from '../replay/read-log-entries';
import { DEFAULT_BATCH_CONCURRENCY, DEFAULT_IDLE_TIMEOUT_MS, positiveInt } from './batch';
import { readPolicyFile } from '../policy-file';
import { EXIT_CODES } from '@guardagent/client';


interface ReplayOptions {
  policy: string;
  from?: string;
  since?: string;
  until?: string;
  tenant: string;
  against?: string;
  out: string;
  json?: boolean;
  failOnFlip?: boolean;
  progress?: boolean;
  concurrency: string;
  idleTimeout: string;
}

const HELP = `
Re-decides recorded traffic with the policy in --policy, through the normal pipeline and the
batch machinery (bounded memory, progress, resumable: run the same command again after a crash
or Ctrl-C), then prints a decision diff: how many flipped allow→deny, deny→allow, to or from
pending, newly erroring, or kept the decision with other reasons or rules; broken down by the
rule that stops the call and by the subject's role, with examples. Entries recorded without their
job (too large) are counted as not replayable.

The traffic: --from a \`guardagent log export\` file, or --since (and --until) to read the log of
the deployment on REDIS_URL (its --tenant's entries of the --policy's id), saved once to
<out>.log.jsonl so a resumed run replays the same entries.
The comparison: by default with what was recorded; with --against CURRENT.yaml, with the same
traffic re-decided by that version too (a diff of the two versions alone, whatever decided the
traffic when it was recorded).

It always runs on a private redis-server and workers of its own, so it never registers a policy
on a deployment. To replay on a running deployment, on its executors, use the gateway:
POST /v1/policies/{id}/replays.

Files: --out gets the replayed decisions (batch output format); <out>.jobs.jsonl the jobs
replayed; with --against, <out>.against.jsonl that version's decisions.
Exit codes: as guardagent batch (${EXIT_CODES.OK}, ${EXIT_CODES.INVALID}, ${EXIT_CODES.GUARD_ERROR}, ${EXIT_CODES.UNAVAILABLE}, ${EXIT_CODES.INTERRUPTED}), and ${EXIT_CODES.FLIPPED} with --fail-on-flip when any decision flipped.
`;

/** The replayed decisions in a batch output file, by id. */
async function readDecisions(path: string): Promise<Map<string, DecisionSummary>> {
  const decisions = new Map<string, DecisionSummary>();
  for await (const line of readLines(path)) {
    if (!line.text.trim()) continue;
    const decision = JSON.parse(line.text) as DecisionLine;
    decisions.set(decision.id, { decision: decision.decision, status: decision.status, reasons: decision.reasons, rules: decision.rules ?? [] });
  }
  return decisions;
}

/**
 * The diff of `replayed` against what was recorded, or, with a `baseline`, against what that
 * version decided on the same traffic (an entry it did not decide counts as missing).
 */
async function diffReplay(logPath: string, replayed: ReadonlyMap<string, DecisionSummary>, baseline: ReadonlyMap<string, DecisionSummary> | null): Promise<DecisionDiff> {
  const builder = new DecisionDiffBuilder();
  for await (const entry of readLogEntries(logPath)) {
    const base = baseline?.get(entry.id);
    if (!baseline || !entry.job) builder.add(entry, replayed.get(entry.id));
    else if (!base) builder.add(entry, undefined);
    else builder.add({ ...entry, decision: base.decision as DecisionLogEntry['decision'], status: base.status as DecisionLogEntry['status'], reasons: base.reasons, rules: base.rules }, replayed.get(entry.id));
  }
  return builder.result();
}

/** Write the deployment's log for this replay to `<out>.log.jsonl` once (kept for a resumed run). */
async function exportOnce(options: ReplayOptions, policy: Policy): Promise<string> {
  const path = `${options.out}.log.jsonl`;
  if (existsSync(path)) {
    process.stderr.write(`guardagent: replaying the entries saved in ${path} (delete it to read the log again)\n`);
    return path;
  }
  const partial = `${path}.partial`;
  const out = createWriteStream(partial);
  let count: number;
  try {
    count = await exportLog(
      { command: 'replay', tenant: options.tenant, policyId: policy.id, ...(options.since ? { since: options.since } : {}), ...(options.until ? { until: options.until } : {}) },
      async (line) => {
        if (!out.write(line)) await once(out, 'drain');
      },
    );
  } finally {
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }
  // Renamed only when whole: a run killed mid-export starts the export again.
  await rename(partial, path);
  process.stderr.write(`guardagent: read ${count} recorded decisions of '${policy.id}' (tenant ${options.tenant}) into ${path}\n`);
  return path;
}

export function registerReplay(program: Command): void {
  program
    .command('replay')
    .description('re-decide recorded traffic with a policy version and print the decision diff')
    .requiredOption('--policy <file>', 'the policy version to replay with (YAML/JSON)')
    .option('--from <file>', 'recorded decisions: a `guardagent log export` file')
    .option('--since <when>', "or read the deployment's log (REDIS_URL) from this time: 30m, 24h, 7d or an ISO date")
    .option('--until <when>', 'with --since: before this time')
    .option('--tenant <id>', 'with --since: whose log', 'default')
    .option('--against <file>', 'compare with this version re-deciding the same traffic, instead of with what was recorded')
    .requiredOption('--out <file>', 'replayed decisions (appended; resumable)')
    .option('--json', 'print the diff as JSON')
    .option('--fail-on-flip', `exit ${EXIT_CODES.FLIPPED} when any decision flips (for a policy repository's CI)`)
    .option('--progress', 'report progress even when stderr is not a terminal')
    .option('--concurrency <n>', 'most jobs submitted but not yet decided', String(DEFAULT_BATCH_CONCURRENCY))
    .option('--idle-timeout <ms>', `give up (exit ${EXIT_CODES.UNAVAILABLE}) when nothing is decided for this long`, String(DEFAULT_IDLE_TIMEOUT_MS))
    .addHelpText('after', HELP)
    .action(async (options: ReplayOptions) => {
      if ((options.from === undefined) === (options.since === undefined)) {
        throw new ValidationError('replay options', [{ path: options.from ? '--since' : '--from', message: 'give the traffic either as --from FILE or as --since WHEN (the deployment log), one of the two' }]);
      }
      if (options.until !== undefined && options.since === undefined) throw new ValidationError('replay options', [{ path: '--until', message: '--until goes with --since' }]);
      const maxInFlight = positiveInt(options.concurrency, '--concurrency');
      const idleTimeoutMs = positiveInt(options.idleTimeout, '--idle-timeout');
      const { policy } = readPolicyFile(options.policy);
      const against = options.against === undefined ? null : readPolicyFile(options.against).policy;
      if (against && against.id !== policy.id) throw new ValidationError('replay options', [{ path: '--against', message: `'${against.id}' is not a version of '${policy.id}'` }]);
      const logPath = options.from ?? (await exportOnce(options, policy));
      await assertReadableFile(logPath);
      const jobsPath = `${options.out}.jobs.jsonl`;
      await logToJobs(logPath, jobsPath);
      const replay = (version: Policy, outPath: string) =>
        runBatchCommand({ policy: version, inPath: jobsPath, outPath, maxInFlight, idleTimeoutMs, remote: false, privateRedis: true, progress: Boolean(options.progress), reportMemory: false });
      const againstPath = `${options.out}.against.jsonl`;
      if (against) {
        const baseline = await replay(against, againstPath);
        // A run that stopped early has set its exit code; its decisions so far are kept for a resume.
        if (!baseline || baseline.inputError || baseline.interrupted) return;
      }
      const result = await replay(policy, options.out);
      if (!result || result.inputError || result.interrupted) return;
      const diff = await diffReplay(logPath, await readDecisions(options.out), against ? await readDecisions(againstPath) : null);
      process.stdout.write(options.json ? `${JSON.stringify(diff, null, 2)}\n` : formatDiff(diff));
      if (options.failOnFlip && diff.flips > 0) process.exitCode = EXIT_CODES.FLIPPED;
    });
}
