import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from '../lib/children';
import { startExecutor, waitForExecutors, type ExecutorProcess } from '../lib/executors';
import { log } from '../lib/log';
import { round } from '../lib/stats';

export interface BatchOptions {
  redisUrl: string;
  prefix: string;
  jobs: number;
  executors: number;
  workDir: string;
}

export interface BatchResult {
  batch_throughput: number;
  batch_run: { jobs: number; executors: number; seconds: number; decided: number; wrong: number; pipeline_rate: number | null };
}

/** A supplied program, verified against its examples by the executors before the batch runs. */
const POLICY = `id: bench-batch
version: 1
requests: deny inputs that contain the word bad
mode: compiled
program: |
  return { deny: input.includes('bad'), reasons: input.includes('bad') ? ['bad word'] : [] };
examples:
  - { id: e1, input: 'this is bad', output: '', label: 1, reasons: ['bad word'] }
  - { id: e2, input: 'this is fine', output: '', label: 0 }
`;

/**
 * `guardagent batch --remote` of `jobs` compiled checks from a JSONL file, as an operator runs
 * it, against `executors` executor processes: file in to decisions file out (CLI start-up
 * included), every decision checked.
 */
export async function runBatchBench(o: BatchOptions): Promise<BatchResult> {
  const policy = join(o.workDir, 'batch-policy.yaml');
  const input = join(o.workDir, 'batch-jobs.jsonl');
  const output = join(o.workDir, 'batch-decisions.jsonl');
  await writeFile(policy, POLICY);
  await writeLines(input, o.jobs);
  const executors: ExecutorProcess[] = [];
  for (let i = 1; i <= o.executors; i++) executors.push(startExecutor({ redisUrl: o.redisUrl, prefix: o.prefix, index: 10 + i, workDir: o.workDir, profileDir: null }));
  try {
    await waitForExecutors(o.redisUrl, o.prefix, o.executors);
    const started = performance.now();
    const run = await runCli(['batch', '--remote', '--policy', policy, '--in', input, '--out', output], { REDIS_URL: o.redisUrl, GUARDAGENT_PREFIX: o.prefix });
    const seconds = (performance.now() - started) / 1000;
    if (run.code !== 0) throw new Error(`guardagent batch failed (${run.code}): ${run.stderr.slice(-2000)}`);
    const { decided, wrong } = await checkDecisions(output);
    if (decided !== o.jobs || wrong > 0) throw new Error(`batch decided ${decided} of ${o.jobs} jobs, ${wrong} wrongly`);
    const rate = /rate:\s+([0-9.]+)/.exec(run.stderr.slice(run.stderr.lastIndexOf('batch summary')));
    const throughput = Math.round(o.jobs / seconds);
    log(`batch: ${o.jobs} jobs, ${o.executors} executors, ${seconds.toFixed(2)} s file to file = ${throughput}/s`);
    return {
      batch_throughput: throughput,
      batch_run: { jobs: o.jobs, executors: o.executors, seconds: round(seconds), decided, wrong, pipeline_rate: rate ? Number(rate[1]) : null },
    };
  } finally {
    await Promise.all(executors.map((e) => e.stop()));
  }
}

async function writeLines(path: string, n: number): Promise<void> {
  const out = createWriteStream(path);
  for (let i = 0; i < n; i++) {
    const line = JSON.stringify({ id: `job-${i}`, input: i % 2 ? `this is bad ${i}` : `this is fine ${i}`, output: '' });
    if (!out.write(`${line}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

async function checkDecisions(path: string): Promise<{ decided: number; wrong: number }> {
  let decided = 0;
  let wrong = 0;
  for await (const line of createInterface({ input: createReadStream(path) })) {
    if (!line) continue;
    const d = JSON.parse(line) as { id: string; decision: string; status: string };
    decided++;
    if (d.status !== 'ok' || d.decision !== (Number(d.id.slice(4)) % 2 ? 'deny' : 'allow')) wrong++;
  }
  return { decided, wrong };
}

function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'packages', 'cli', 'bin', 'guardagent.mjs'), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env, GUARDAGENT_LLM_BASE_URL: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}
