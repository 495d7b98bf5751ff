import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { deletePrefix, parseSummary, policyYaml, readDecisions, runBatch, startBatch, writeJobs } from './batch-helpers';

const JOBS = 8000;
let dir: string;
const prefix = uniquePrefix('batch-kill');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'guardagent-batch-kill-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await deletePrefix(testRedisUrl(), prefix);
});

async function countLines(path: string): Promise<number> {
  try {
    if ((await stat(path)).size === 0) return 0;
    return (await readFile(path, 'utf8')).split('\n').length - 1;
  } catch {
    return 0;
  }
}

it('a run killed with SIGKILL midway resumes: every id decided exactly once, no partial lines', { timeout: 240_000 }, async () => {
  const policy = join(dir, 'policy.yaml');
  await writeFile(policy, policyYaml('batch-kill'));
  const input = join(dir, 'jobs.jsonl');
  const out = join(dir, 'decisions.jsonl');
  await writeJobs(input, JOBS);
  const env = {
    REDIS_URL: testRedisUrl(),
    GUARDAGENT_PREFIX: prefix,
    // Jobs the killed process was running stay locked until their lock expires and the stall
    // check hands them to the new run's workers: keep that short here (default 30 s + 30 s).
    GUARDAGENT_LOCK_DURATION_MS: '5000',
    GUARDAGENT_STALLED_INTERVAL_MS: '2000',
  };
  const args = ['--policy', policy, '--in', input, '--out', out, '--idle-timeout', '90000'];

  const first = startBatch(args, env);
  const deadline = Date.now() + 120_000;
  while ((await countLines(out)) < 1500) {
    if (Date.now() > deadline) throw new Error('the first run wrote too few decisions');
    if (first.child.exitCode !== null) throw new Error(`the first run ended early: ${(await first.done).stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // The bin is the process doing the work (its sandbox workers exit with it).
  process.kill(first.child.pid!, 'SIGKILL');
  const killed = await first.done;
  expect(killed.signal ?? killed.code).toBe('SIGKILL');
  const decidedBefore = await countLines(out);
  expect(decidedBefore).toBeGreaterThanOrEqual(1500);
  expect(decidedBefore).toBeLessThan(JOBS);

  // Whatever the kill left, also leave an unfinished line, as a kill in the middle of a write would.
  await appendFile(out, '{"id":"job-77","decision":"al');

  const second = await runBatch(args, env);
  expect(second.code, second.stderr).toBe(0);
  const summary = parseSummary(second.stderr);
  expect(summary.total).toBe(JOBS);
  expect(summary.skipped).toBeGreaterThanOrEqual(decidedBefore);
  expect(summary.skipped + summary.decided).toBe(JOBS);
  expect(second.stderr).toMatch(/repaired: +cut an unfinished last line/);

  const text = await readFile(out, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  const decisions = await readDecisions(out); // throws on any partial or non-JSON line
  expect(decisions).toHaveLength(JOBS);
  const ids = new Set(decisions.map((d) => d.id as string));
  expect(ids.size).toBe(JOBS);
  expect(Array.from({ length: JOBS }, (_, i) => `job-${i}`).filter((id) => !ids.has(id))).toEqual([]);
  const wrong = decisions.filter((d) => d.status !== 'ok' || d.decision !== (Number((d.id as string).slice(4)) % 2 ? 'deny' : 'allow'));
  expect(wrong).toEqual([]);
});
