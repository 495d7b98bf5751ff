import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';

const BIN = fileURLToPath(new URL('../bin/guardagent.mjs', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * A cheap supplied program (verified against its examples before use): deny "bad", fail on
 * "boom" (a guard_error), allow the rest.
 */
export function policyYaml(id: string): string {
  return `id: ${id}
version: 1
requests: deny inputs that contain the word bad
mode: compiled
program: |
  if (input.includes('boom')) throw new Error('boom');
  return { deny: input.includes('bad'), reasons: input.includes('bad') ? ['bad word'] : [] };
examples:
  - { id: e1, input: 'this is bad', output: '', label: 1, reasons: ['bad word'] }
  - { id: e2, input: 'this is fine', output: '', label: 0 }
`;
}

export type LineMaker = (i: number) => Record<string, unknown>;

/** Every other job is denied; `pad` characters of output make each line bigger. */
export const defaultLine =
  (pad = 0): LineMaker =>
  (i) => ({ id: `job-${i}`, input: i % 2 ? `this is bad ${i}` : `this is fine ${i}`, output: `log ${'x'.repeat(pad)}` });

/** Write n JSONL jobs with backpressure (the 100k file is never in memory either). */
export async function writeJobs(path: string, n: number, make: LineMaker = defaultLine()): Promise<void> {
  const out = createWriteStream(path);
  for (let i = 0; i < n; i += 1) {
    if (!out.write(`${JSON.stringify(make(i))}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

export interface BatchRun {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** Run `guardagent batch ...` as a child process, the way an operator would. */
export function startBatch(args: string[], env: Record<string, string>): BatchRun {
  return startCli(['batch', ...args], env);
}

/** Run `guardagent <args>` as a child process. */
export function startCli(args: string[], env: Record<string, string>): BatchRun {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

export function runBatch(args: string[], env: Record<string, string>) {
  return startBatch(args, env).done;
}

export function runCli(args: string[], env: Record<string, string>) {
  return startCli(args, env).done;
}

/** The `batch summary` block of stderr as numbers (first number of each row). */
export function parseSummary(stderr: string): Record<string, number> {
  const start = stderr.lastIndexOf('batch summary');
  if (start === -1) throw new Error(`no summary in stderr:\n${stderr}`);
  const summary: Record<string, number> = {};
  for (const line of stderr.slice(start).split('\n').slice(1)) {
    const match = /^ {2}([a-z ]+):\s+([0-9.]+)/.exec(line);
    if (!match) break;
    summary[match[1]!] = Number(match[2]);
  }
  return summary;
}

/** Parse an output file strictly: every line complete JSON with the documented fields. */
export async function readDecisions(path: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(path, 'utf8');
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('output does not end with a newline');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Delete every key of a test's prefix (the 100k run leaves hundreds of MB in the shared server). */
export async function deletePrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 5000);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
