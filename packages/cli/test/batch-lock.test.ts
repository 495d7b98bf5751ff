import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { REPO_ROOT, deletePrefix, runBatch, startBatch, writeJobs } from './batch-helpers';

// One run per --out file, and no run outliving the command that started it. The runs here use
// --remote with no workers: they submit their jobs and then wait, holding the lock, until told
// to stop (or --idle-timeout), which is what a long batch looks like from outside.

let dir: string;
const prefix = uniquePrefix('batch-lock');
const env = () => ({ REDIS_URL: testRedisUrl(), GUARDAGENT_PREFIX: prefix });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'guardagent-batch-lock-'));
  // Rails only: nothing to verify, so nothing waits for a worker before the jobs are queued.
  await writeFile(join(dir, 'policy.yaml'), 'id: batch-lock\nrails:\n  input:\n    injection: {}\n');
  await writeJobs(join(dir, 'jobs.jsonl'), 20);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await deletePrefix(testRedisUrl(), prefix);
});

const argsFor = (out: string, idleMs: number) => ['--remote', '--policy', join(dir, 'policy.yaml'), '--in', join(dir, 'jobs.jsonl'), '--out', out, '--idle-timeout', String(idleMs)];

async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Processes whose command line mentions `text` (Linux /proc). */
async function processesMentioning(text: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const command = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (command.includes(text)) found.push(Number(entry));
  }
  return found;
}

describe('guardagent batch --out lock', () => {
  it('a second run on the same --out refuses (exit 2, BATCH_OUTPUT_LOCKED) and writes nothing; after the first ends, a run may take it', { timeout: 120_000 }, async () => {
    const out = join(dir, 'locked.jsonl');
    const first = startBatch(argsFor(out, 120_000), env());
    await until('the first run holds the lock', () => existsSync(`${out}.lock`));
    const sizeBefore = existsSync(out) ? (await stat(out)).size : 0;

    const second = await runBatch(argsFor(out, 120_000), env());
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toMatch(/waiting up to 12 s/);
    expect(second.stderr).toMatch(/BATCH_OUTPUT_LOCKED: .*locked\.jsonl is being written by another guardagent batch run/);
    expect(existsSync(out) ? (await stat(out)).size : 0).toBe(sizeBefore);
    expect(first.child.exitCode).toBeNull();

    first.child.kill('SIGTERM');
    const ended = await first.done;
    expect(ended.code, ended.stderr).toBe(130);
    expect(existsSync(`${out}.lock`)).toBe(false);

    // The file is free again: this run gets past the lock and stops only for want of workers (6, UNAVAILABLE).
    const third = await runBatch(argsFor(out, 1_000), env());
    expect(third.stderr).not.toMatch(/BATCH_OUTPUT_LOCKED|waiting up to/);
    expect(third.code, third.stderr).toBe(6);
  });

  it('the lock of a run killed with SIGKILL is taken over by the next run once stale', { timeout: 120_000 }, async () => {
    const out = join(dir, 'killed.jsonl');
    const first = startBatch(argsFor(out, 120_000), env());
    await until('the first run holds the lock', () => existsSync(`${out}.lock`));
    first.child.kill('SIGKILL');
    await first.done;
    expect(existsSync(`${out}.lock`)).toBe(true);

    const next = await runBatch(argsFor(out, 1_000), env());
    expect(next.stderr).toMatch(/locked by another run, or by one that was killed; waiting/);
    expect(next.stderr).not.toMatch(/BATCH_OUTPUT_LOCKED/);
    expect(next.code, next.stderr).toBe(6);
  });

  it('killing the npx process (SIGKILL) stops the batch it started, which releases its lock', { timeout: 120_000 }, async () => {
    const out = join(dir, 'npx.jsonl');
    const npm = spawn('npm', ['exec', '--no', '--', 'guardagent', 'batch', ...argsFor(out, 120_000)], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env() },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    npm.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    await until('the batch holds the lock', () => existsSync(`${out}.lock`), 60_000);
    expect(await processesMentioning(out)).not.toEqual([]);

    npm.kill('SIGKILL');
    await until('no process runs the batch any more', async () => (await processesMentioning(out)).length === 0, 30_000);
    expect(existsSync(`${out}.lock`)).toBe(false);
    expect(stderr).toMatch(/the npm process that started this command \(pid \d+\) is gone; stopping/);
  });
});
