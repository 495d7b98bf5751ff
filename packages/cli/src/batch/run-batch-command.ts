import { EXIT_CODES } from '@guardagent/client';
import { ValidationError, errorMessage } from '@guardagent/errors';
import type { Policy } from '@guardagent/schemas';
import { startLocalStack } from '../local-stack';
import { ensurePolicyReady, verificationWarning } from '../ensure-policy';
import { createProgress } from '../progress';
import { BatchOutputError } from './batch-output-error';
import { BatchRunner, type BatchResult } from './batch-runner';
import { BatchStalledError } from './batch-stalled-error';
import { batchExitCode } from './batch-exit-code';
import { batchKey } from './batch-key';
import { formatSummary } from './batch-summary';
import { lockOutput, OUTPUT_LOCK_WAIT_MS } from './lock-output';
import { assertReadableFile } from './read-lines';

export interface BatchCommandOptions {
  policy: Policy;
  inPath: string;
  outPath: string;
  maxInFlight: number;
  idleTimeoutMs: number;
  /** Use workers already running on REDIS_URL instead of starting them here. */
  remote: boolean;
  /** Run on a private redis-server even when REDIS_URL is set (replays: never touch a deployment). */
  privateRedis?: boolean;
  progress: boolean;
  reportMemory: boolean;
}

/**
 * `guardagent batch` as a function (also the first half of `guardagent replay`): locks the output,
 * starts or joins the workers, registers and verifies the policy, runs the batch, prints the
 * summary and sets process.exitCode (see the batch command's help). Resolves to the run's result,
 * or null when it stopped early (exit code 6 already set); bad input throws.
 */
export async function runBatchCommand(options: BatchCommandOptions): Promise<BatchResult | null> {
  await assertReadableFile(options.inPath);
  const controller = new AbortController();
  // One run per --out: a second run on the same file would decide and write every id again.
  const unlock = await lockOutput(options.outPath, {
    onWait: () => process.stderr.write(`guardagent: ${options.outPath} is locked by another run, or by one that was killed; waiting up to ${OUTPUT_LOCK_WAIT_MS / 1000} s for it\n`),
    onLost: (error) => {
      process.stderr.write(`guardagent: lost the lock on ${options.outPath} (${errorMessage(error)}); stopping\n`);
      controller.abort();
    },
  });
  let firstSignalAt = 0;
  const onSignal = () => {
    // Ctrl-C can reach this process twice (from the terminal, and forwarded by npm when run
    // through npx): only a second press, a moment later, means "quit at once".
    if (firstSignalAt) {
      if (Date.now() - firstSignalAt > 1000) process.exit(EXIT_CODES.INTERRUPTED);
      return;
    }
    firstSignalAt = Date.now();
    // No message here: it would collide with the progress bar; the summary says it.
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let stack: Awaited<ReturnType<typeof startLocalStack>>;
  try {
    stack = await startLocalStack({ stages: options.remote ? [] : undefined, serviceName: 'guardagent-batch', privateRedis: options.privateRedis ?? false });
  } catch (error) {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await unlock();
    throw error;
  }
  try {
    const ready = await ensurePolicyReady(stack.client, options.policy);
    const warning = verificationWarning(ready);
    if (warning) process.stderr.write(warning);
    const runner = new BatchRunner({
      client: stack.client,
      policyId: ready.id,
      key: batchKey(options.outPath, ready.digest),
      inPath: options.inPath,
      outPath: options.outPath,
      maxInFlight: options.maxInFlight,
      idleTimeoutMs: options.idleTimeoutMs,
      signal: controller.signal,
      progress: (total) => createProgress({ total, label: 'batch', force: options.progress }),
    });
    // The peak so far (code loaded, workers and policy ready): what the run itself adds shows against it.
    const startRssKb = process.resourceUsage().maxRSS;
    let result: BatchResult;
    try {
      result = await runner.run();
    } catch (error) {
      // Bad input files are the caller's to fix (2); anything else stopped a run that can resume (6).
      if (error instanceof BatchOutputError || error instanceof ValidationError) throw error;
      const what = error instanceof BatchStalledError ? `${error.code}: ${error.message}` : `the run failed: ${errorMessage(error)}`;
      process.stderr.write(`guardagent: ${what}\n`);
      if (!(error instanceof BatchStalledError)) process.stderr.write('guardagent: decisions written so far are kept; run the same command again to resume\n');
      process.exitCode = EXIT_CODES.UNAVAILABLE;
      return null;
    }
    process.stderr.write(
      formatSummary(result.counts, {
        elapsedMs: result.elapsedMs,
        truncatedBytes: result.truncatedBytes,
        ...(options.reportMemory ? { maxRssKb: process.resourceUsage().maxRSS, startRssKb } : {}),
      }),
    );
    if (result.inputError) {
      process.stderr.write(`guardagent: ${result.inputError.code}: ${result.inputError.message}\n`);
      process.stderr.write('guardagent: stopped before that line; fix it and run the same command again to resume\n');
    }
    if (result.interrupted) process.stderr.write('guardagent: interrupted; decisions that arrived are written; run the same command again to resume\n');
    process.exitCode = batchExitCode(result);
    return result;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await stack.stop();
    await unlock();
  }
}
