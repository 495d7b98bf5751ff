import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { deletePrefix, runCli, startCli } from './batch-helpers';

// A recorded log (as `guardagent log export` writes it) under a policy that denies "bad", replayed
// with the same policy and with a stricter one that also denies "worse".
const policy = (id: string, words: string[]) => `id: ${id}
version: 2
requests: deny inputs with ${words.join(' or ')}
mode: compiled
program: |
  const hit = ${JSON.stringify(words)}.find((w) => input.includes(w));
  return { deny: Boolean(hit), reasons: hit ? ['says ' + hit] : [] };
examples:
  - { id: e1, input: 'this is ${words[0]}', output: '', label: 1, reasons: ['says ${words[0]}'] }
  - { id: e2, input: 'this is fine', output: '', label: 0 }
`;
const inputs = ['fine 1', 'bad 2', 'worse 3', 'fine 4', 'worse 5', 'bad and worse 6'];
const entry = (i: number, input: string) => ({
  id: `rec-${i}`,
  at: new Date().toISOString(),
  policy: { id: 'moderation', version: '1', digest: 'd'.repeat(64) },
  job: { input, output: '', context: {}, subject: { id: 'u', roles: [i % 2 ? 'agent' : 'bot'], attributes: {} } },
  decision: input.includes('bad') ? 'deny' : 'allow',
  status: 'ok',
  layer: 'guardagent',
  mode: 'compiled',
  reasons: input.includes('bad') ? ['says bad'] : [],
  rules: [],
  timings: { total: 1 },
});

let dir: string;
const prefix = uniquePrefix('replay');
const env = { REDIS_URL: testRedisUrl(), GUARDAGENT_PREFIX: prefix, GUARDAGENT_LLM_BASE_URL: '' };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'guardagent-replay-'));
  const lines = inputs.map((input, i) => entry(i, input));
  // One entry recorded without its job (it was too large): counted, never replayed.
  lines.push({ ...entry(99, 'x'), job: null, jobOmitted: 'too large' } as never);
  await writeFile(join(dir, 'traffic.jsonl'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  await writeFile(join(dir, 'same.yaml'), policy('moderation', ['bad']));
  await writeFile(join(dir, 'strict.yaml'), policy('moderation', ['worse', 'bad']));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await deletePrefix(testRedisUrl(), prefix);
});

describe('guardagent replay', () => {
  it('against a stricter version: reports the exact allow→deny flips with examples, and exits 5 with --fail-on-flip', async () => {
    const run = await runCli(['replay', '--policy', join(dir, 'strict.yaml'), '--from', join(dir, 'traffic.jsonl'), '--out', join(dir, 'strict.out.jsonl'), '--json', '--fail-on-flip'], env);
    expect(run.code, run.stderr).toBe(5);
    const diff = JSON.parse(run.stdout);
    expect(diff).toMatchObject({ recorded: 7, compared: 6, notReplayable: 1, missing: 0, flips: 2, unchanged: 3 });
    expect(diff.changes['allow→deny']).toBe(2);
    expect(diff.changes['deny→allow']).toBe(0);
    // "bad and worse" stays denied, now for its first hit in the stricter list: another reason.
    expect(diff.changes['reasons or rules changed']).toBe(1);
    expect(diff.examples['reasons or rules changed'][0]).toMatchObject({ id: 'rec-5', recorded: { reasons: ['says bad'] }, replayed: { reasons: ['says worse'] } });
    expect(diff.examples['allow→deny'].map((e: { id: string }) => e.id)).toEqual(['rec-2', 'rec-4']);
    expect(diff.examples['allow→deny'][0].replayed).toMatchObject({ decision: 'deny', reasons: ['says worse'] });
    expect(diff.byRole).toEqual({ bot: { 'allow→deny': 2 }, agent: { 'reasons or rules changed': 1 } });
    expect(diff.byRule).toEqual({ '(no rule)': { 'allow→deny': 2, 'reasons or rules changed': 1 } });
  });

  it('against the same version: no flips, exit 0; the text diff says so', async () => {
    const run = await runCli(['replay', '--policy', join(dir, 'same.yaml'), '--from', join(dir, 'traffic.jsonl'), '--out', join(dir, 'same.out.jsonl'), '--fail-on-flip'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/flips:\s+0/);
    expect(run.stdout).toMatch(/unchanged:\s+6/);
    const replayed = (await readFile(join(dir, 'same.out.jsonl'), 'utf8')).trim().split('\n');
    expect(replayed).toHaveLength(6);
  });

  it('--since reads the deployment log (REDIS_URL) once into <out>.log.jsonl, and never registers the policy there', async () => {
    const { Redis } = await import('ioredis');
    const redis = new Redis(testRedisUrl());
    try {
      // The deployment's own log, as its decision script writes it.
      const lines = (await readFile(join(dir, 'traffic.jsonl'), 'utf8')).trim().split('\n');
      for (const line of lines) await redis.xadd(`${prefix}:default:decision-log`, '*', 'e', line);
      const out = join(dir, 'since.out.jsonl');
      const run = await runCli(['replay', '--policy', join(dir, 'strict.yaml'), '--since', '1h', '--out', out, '--json'], env);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ recorded: 7, compared: 6, notReplayable: 1, flips: 2, unchanged: 3 });
      expect((await readFile(`${out}.log.jsonl`, 'utf8')).trim().split('\n')).toHaveLength(7);
      // The replay ran on a private Redis: the deployment has no version of 'moderation'.
      expect(await redis.exists(`${prefix}:default:policy:moderation`)).toBe(0);
      expect(await redis.keys(`${prefix}:default:policy-snapshot:*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });

  it('--against compares two versions on the same traffic, whatever was recorded', async () => {
    // Recorded under an older rule: "fine 1" was denied then.
    const drifted = inputs.map((input, i) => (i === 0 ? { ...entry(i, input), decision: 'deny', reasons: ['an old rule'] } : entry(i, input)));
    await writeFile(join(dir, 'drifted.jsonl'), `${drifted.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const args = (out: string, extra: string[] = []) => ['replay', '--policy', join(dir, 'strict.yaml'), '--from', join(dir, 'drifted.jsonl'), '--out', join(dir, out), '--json', ...extra];
    const vsRecorded = JSON.parse((await runCli(args('drift.out.jsonl'), env)).stdout);
    expect(vsRecorded.changes).toMatchObject({ 'deny→allow': 1, 'allow→deny': 2 });
    const run = await runCli(args('against.out.jsonl', ['--against', join(dir, 'same.yaml')]), env);
    expect(run.code, run.stderr).toBe(0);
    const diff = JSON.parse(run.stdout);
    // Only what the stricter version changes: "worse" denied; the old rule's deny is not a flip.
    expect(diff).toMatchObject({ recorded: 6, compared: 6, flips: 2, unchanged: 3 });
    expect(diff.changes).toMatchObject({ 'deny→allow': 0, 'allow→deny': 2, 'reasons or rules changed': 1 });
    expect((await readFile(join(dir, 'against.out.jsonl.against.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(6);
  });

  it('refuses unclear traffic options, naming them', async () => {
    const base = ['replay', '--policy', join(dir, 'same.yaml'), '--out', join(dir, 'opts.out.jsonl')];
    const neither = await runCli(base, env);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(/--from FILE or as --since WHEN/);
    expect((await runCli([...base, '--from', join(dir, 'traffic.jsonl'), '--since', '1h'], env)).code).toBe(2);
    const until = await runCli([...base, '--from', join(dir, 'traffic.jsonl'), '--until', '1h'], env);
    expect(until.stderr).toMatch(/--until goes with --since/);
    await writeFile(join(dir, 'other.yaml'), policy('other', ['bad']));
    const other = await runCli([...base, '--from', join(dir, 'traffic.jsonl'), '--against', join(dir, 'other.yaml')], env);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/'other' is not a version of 'moderation'/);
  });

  it('refuses a file that is not a decision log, naming the line', async () => {
    await writeFile(join(dir, 'bad-log.jsonl'), `${JSON.stringify(entry(1, 'fine'))}\n{"id": "x"}\n`);
    const run = await runCli(['replay', '--policy', join(dir, 'same.yaml'), '--from', join(dir, 'bad-log.jsonl'), '--out', join(dir, 'bad.out.jsonl')], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/line 2/);
  });

  it('a replay killed with SIGKILL midway resumes when run again, and its diff counts every entry once', { timeout: 240_000 }, async () => {
    const total = 4000;
    const lines = Array.from({ length: total }, (_, i) => JSON.stringify(entry(i, i % 4 === 0 ? `worse ${i}` : i % 4 === 1 ? `bad ${i}` : `fine ${i}`)));
    await writeFile(join(dir, 'big.jsonl'), `${lines.join('\n')}\n`);
    const out = join(dir, 'big.out.jsonl');
    const args = ['replay', '--policy', join(dir, 'strict.yaml'), '--from', join(dir, 'big.jsonl'), '--out', out, '--json', '--fail-on-flip', '--idle-timeout', '90000'];
    // Jobs the killed run held are handed over once their lock expires: keep that short here.
    const killEnv = { ...env, GUARDAGENT_LOCK_DURATION_MS: '5000', GUARDAGENT_STALLED_INTERVAL_MS: '2000' };
    const replayedLines = async () => {
      try {
        return (await stat(out)).size === 0 ? 0 : (await readFile(out, 'utf8')).split('\n').length - 1;
      } catch {
        return 0;
      }
    };

    const first = startCli(args, killEnv);
    const deadline = Date.now() + 120_000;
    while ((await replayedLines()) < 800) {
      if (Date.now() > deadline) throw new Error('the first replay wrote too few decisions');
      if (first.child.exitCode !== null) throw new Error(`the first replay ended early: ${(await first.done).stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    process.kill(first.child.pid!, 'SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    expect(await replayedLines()).toBeLessThan(total);

    const second = await runCli(args, killEnv);
    expect(second.code, second.stderr).toBe(5);
    const diff = JSON.parse(second.stdout);
    // Every fourth entry ("worse") was allowed and is now denied; nothing else changes.
    expect(diff).toMatchObject({ recorded: total, compared: total, missing: 0, flips: total / 4, unchanged: (total * 3) / 4 });
    expect(diff.changes['allow→deny']).toBe(total / 4);
  });
});
