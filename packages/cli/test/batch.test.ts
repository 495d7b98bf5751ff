import { mkdtemp, readFile, rm, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import type { Decision } from '@guardagent/schemas';
import {
  BatchInputError,
  BatchOutputError,
  batchExitCode,
  batchKey,
  countNonBlankLines,
  decisionLine,
  lineIdempotencyKey,
  parseBatchLine,
  prepareOutput,
  readLines,
} from '../src/batch';
import { createProgress, formatDuration } from '../src/progress';
import { deletePrefix, parseSummary, policyYaml, readDecisions, runBatch, writeJobs } from './batch-helpers';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'guardagent-batch-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('parseBatchLine', () => {
  it('accepts a job and keeps its fields', () => {
    const line = parseBatchLine('{"id":"a1","input":"hi","output":{"tool":"x"},"context":{"k":1}}', 3, 'in.jsonl');
    expect(line).toEqual({ id: 'a1', input: 'hi', output: { tool: 'x' }, context: { k: 1 } });
  });

  const bad: Array<[string, string, string]> = [
    ['{"id":"a1","input":', '', 'not valid JSON'],
    ['[1,2]', '', 'must be a JSON object'],
    ['{"input":"x","output":"y"}', 'id', ''],
    ['{"id":"","input":"x","output":"y"}', 'id', ''],
    ['{"id":"a","output":"y"}', 'input', ''],
    ['{"id":"a","input":"x","output":"y","context":"oops"}', 'context', ''],
    ['{"id":"a","input":"x","output":"y","subject":{"roles":["r"]}}', 'subject.id', ''],
    ['{"id":"a","input":"x","output":"y","policy":"p"}', 'policy', 'comes from --policy'],
    ['{"id":"a","input":"x","output":"y","idempotencyKey":"k"}', 'idempotencyKey', 'line id'],
    ['{"id":"a","input":"x","output":"y","extra":1}', 'extra', ''],
  ];
  it.each(bad)('rejects %s naming the line and field %s', (text, field, message) => {
    let error: unknown;
    try {
      parseBatchLine(text, 7, 'in.jsonl');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(BatchInputError);
    const e = error as BatchInputError;
    expect(e.line).toBe(7);
    expect(e.code).toBe('BATCH_INPUT_INVALID');
    expect(e.field).toBe(field);
    expect(e.message).toContain('in.jsonl: line 7');
    if (field) expect(e.message).toContain(`field ${field}`);
    if (message) expect(e.message).toContain(message);
  });
});

describe('readLines / countNonBlankLines', () => {
  it('numbers lines across chunk boundaries, accepts CRLF and a last line without newline', async () => {
    const path = join(dir, 'lines.txt');
    const long = 'y'.repeat(600_000); // longer than one 256 KiB read
    await writeFile(path, `a\r\n\n  \n${long}\nlast`);
    const lines = [];
    for await (const line of readLines(path)) lines.push(line);
    expect(lines.map((l) => l.number)).toEqual([1, 2, 3, 4, 5]);
    expect(lines[0]!.text).toBe('a');
    expect(lines[3]!.text).toBe(long);
    expect(lines[4]!.text).toBe('last');
    expect(await countNonBlankLines(path)).toBe(3);
  });

  it('refuses a line longer than the limit, naming it', async () => {
    const path = join(dir, 'long.txt');
    await writeFile(path, `ok\n${'z'.repeat(5000)}\n`);
    const read = async () => {
      for await (const line of readLines(path, { maxLineBytes: 1000 })) void line;
    };
    await expect(read()).rejects.toThrow(/line 2: line longer than 1000 bytes/);
  });
});

describe('prepareOutput', () => {
  it('treats a missing file as empty', async () => {
    const prepared = await prepareOutput(join(dir, 'none.jsonl'));
    expect(prepared.decided.size).toBe(0);
    expect(prepared.truncatedBytes).toBe(0);
  });

  it('cuts an unfinished last line and collects the decided ids', async () => {
    const path = join(dir, 'partial.jsonl');
    await writeFile(path, '{"id":"a","decision":"allow"}\n{"id":"b","decision":"deny"}\n{"id":"c","deci');
    const prepared = await prepareOutput(path);
    expect([...prepared.decided].sort()).toEqual(['a', 'b']);
    expect(prepared.guardErrors.size).toBe(0);
    expect(prepared.truncatedBytes).toBe('{"id":"c","deci'.length);
    expect(await readFile(path, 'utf8')).toBe('{"id":"a","decision":"allow"}\n{"id":"b","decision":"deny"}\n');
  });

  it('cuts a file that is nothing but an unfinished line to empty', async () => {
    const path = join(dir, 'only-partial.jsonl');
    await writeFile(path, '{"id":"x"');
    const prepared = await prepareOutput(path);
    expect(prepared.decided.size).toBe(0);
    expect(await readFile(path, 'utf8')).toBe('');
  });

  it('refuses a file that is not a decisions file', async () => {
    const path = join(dir, 'foreign.jsonl');
    await writeFile(path, '{"id":"a"}\nhello world\n');
    await expect(prepareOutput(path)).rejects.toBeInstanceOf(BatchOutputError);
    await expect(prepareOutput(path)).rejects.toThrow(/line 2/);
  });
});

describe('decision lines, keys and exit codes', () => {
  const decision = {
    id: 'idem-1',
    policy: { id: 'p', version: '1', digest: 'd' },
    decision: 'allow',
    status: 'guard_error',
    layer: 'none',
    mode: null,
    reasons: ['r'],
    rules: [],
    details: { k: 1 },
    plan: null,
    code: 'secret code',
    attempts: 0,
    timings: {},
    usage: { calls: 0, promptTokens: 0, completionTokens: 0 },
    traceId: 't',
    error: { code: 'GUARD_CODE_FAILED', message: 'boom' },
    createdAt: '2026-01-01T00:00:00Z',
  } satisfies Decision;

  it('writes the caller id and the documented fields only, newline-terminated', () => {
    const text = decisionLine('line-1', decision);
    expect(text.endsWith('\n')).toBe(true);
    expect(JSON.parse(text)).toEqual({
      id: 'line-1',
      decision: 'allow',
      status: 'guard_error',
      reasons: ['r'],
      rules: [],
      layer: 'none',
      mode: null,
      details: { k: 1 },
      error: { code: 'GUARD_CODE_FAILED', message: 'boom' },
    });
  });

  it('namespaces idempotency keys by output file and policy digest', () => {
    expect(batchKey('/tmp/a.jsonl', 'd1')).toBe(batchKey('/tmp/../tmp/a.jsonl', 'd1'));
    expect(batchKey('/tmp/a.jsonl', 'd1')).not.toBe(batchKey('/tmp/b.jsonl', 'd1'));
    expect(batchKey('/tmp/a.jsonl', 'd1')).not.toBe(batchKey('/tmp/a.jsonl', 'd2'));
    expect(lineIdempotencyKey(batchKey('/x', 'd'), 'i'.repeat(200)).length).toBeLessThanOrEqual(256);
  });

  it('maps results to exit codes', () => {
    const base = { elapsedMs: 1, truncatedBytes: 0, inputError: null, interrupted: false };
    const counts = { total: 2, skipped: 0, skippedGuardErrors: 0, decided: 2, allowed: 1, denied: 1, pending: 0, guardErrors: 0 };
    expect(batchExitCode({ ...base, counts })).toBe(0);
    expect(batchExitCode({ ...base, counts: { ...counts, guardErrors: 1 } })).toBe(3);
    expect(batchExitCode({ ...base, counts: { ...counts, skipped: 1, skippedGuardErrors: 1 } })).toBe(3);
    expect(batchExitCode({ ...base, counts, inputError: new BatchInputError('f', 7, '', 'bad') })).toBe(2);
    expect(batchExitCode({ ...base, counts, interrupted: true })).toBe(130);
  });
});

describe('createProgress', () => {
  const capture = (isTTY: boolean) => {
    const stream = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
    stream.isTTY = isTTY;
    stream.columns = 200;
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    return { stream, text: () => text };
  };

  it('draws a bar with count, rate and ETA on a terminal', async () => {
    let clock = 0;
    const out = capture(true);
    const progress = createProgress({ total: 100, label: 'demo', stream: out.stream, now: () => clock });
    clock = 1000;
    progress.increment(10);
    clock = 2000;
    progress.update(40);
    progress.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(progress.done).toBe(40);
    expect(progress.rate()).toBeCloseTo(20, 5);
    expect(out.text()).toContain('demo [');
    expect(out.text()).toContain('40/100');
    expect(out.text()).toContain('20.0/s');
    expect(out.text()).toContain('ETA 3s'); // 60 left at 20/s
  });

  it('is silent off a terminal unless forced', async () => {
    const out = capture(false);
    const progress = createProgress({ total: 10, label: 'quiet', stream: out.stream });
    progress.increment(10);
    progress.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.text()).toBe('');
  });

  it('prints plain lines every interval when forced off a terminal, and a last one on stop', async () => {
    const out = capture(false);
    const progress = createProgress({ total: 10, label: 'plain', stream: out.stream, force: true, plainIntervalMs: 20 });
    progress.increment(3);
    // Until the interval has printed twice (on a loaded machine a 70 ms sleep saw only one).
    const deadline = Date.now() + 30_000;
    while (out.text().trim().split('\n').filter(Boolean).length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    progress.setTotal(8);
    progress.increment(5);
    progress.stop();
    progress.stop();
    await new Promise((resolve) => setImmediate(resolve));
    const lines = out.text().trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines[0]).toMatch(/^plain: 3\/10 \(30%\) \| [0-9.]+\/s \| ETA /);
    expect(lines.at(-1)).toMatch(/^plain: 8\/8 \(100%\)/);
    expect(out.text()).not.toContain('\r');
  });

  it('formats durations', () => {
    expect(formatDuration(5)).toBe('5s');
    expect(formatDuration(125)).toBe('2m05s');
    expect(formatDuration(7260)).toBe('2h01m');
    expect(formatDuration(Number.POSITIVE_INFINITY)).toBe('?');
  });
});

describe('guardagent batch (child process, real pipeline)', () => {
  const prefixes: string[] = [];
  const env = () => {
    const prefix = uniquePrefix('batch');
    prefixes.push(prefix);
    return { REDIS_URL: testRedisUrl(), GUARDAGENT_PREFIX: prefix };
  };
  afterAll(async () => {
    for (const prefix of prefixes) await deletePrefix(testRedisUrl(), prefix);
  });

  it('counts allowed, denied, guard errors and skipped lines, and reports progress', async () => {
    const policy = join(dir, 'small-policy.yaml');
    await writeFile(policy, policyYaml('batch-small'));
    const input = join(dir, 'small.jsonl');
    const out = join(dir, 'small-out.jsonl');
    // 30 jobs: 0-9 allowed, 10-21 denied, 22-29 guard errors; plus a blank line that is ignored.
    await writeJobs(input, 30, (i) => ({ id: `s${i}`, input: i < 10 ? `fine ${i}` : i < 22 ? `bad ${i}` : `boom ${i}`, output: '' }));
    await appendFile(input, '\n');
    // An earlier run decided s0 and s10 (and was killed while writing a third line).
    await writeFile(
      out,
      '{"id":"s0","decision":"allow","status":"ok","reasons":[],"layer":"guardagent","mode":"compiled","details":{}}\n' +
        '{"id":"s10","decision":"deny","status":"ok","reasons":["bad word"],"layer":"guardagent","mode":"compiled","details":{}}\n' +
        '{"id":"s11","decis',
    );
    const run = await runBatch(['--policy', policy, '--in', input, '--out', out, '--progress'], env());
    expect(run.code, run.stderr).toBe(3); // guard errors → 3 (GUARD_ERROR)
    const summary = parseSummary(run.stderr);
    expect(summary).toMatchObject({ total: 30, skipped: 2, decided: 28, allowed: 9, denied: 11, 'guard errors': 8 });
    expect(run.stderr).toMatch(/repaired: +cut an unfinished last line of 18 bytes/);
    expect(run.stderr).toMatch(/^batch: 28\/28 \(100%\) \| [0-9.]*[1-9][0-9.]*\/s \| ETA 0s$/m);

    const decisions = await readDecisions(out);
    expect(decisions).toHaveLength(30);
    expect(new Set(decisions.map((d) => d.id)).size).toBe(30);
    const byId = new Map(decisions.map((d) => [d.id as string, d]));
    expect(byId.get('s5')).toMatchObject({ decision: 'allow', status: 'ok', reasons: [], layer: 'guardagent', mode: 'compiled', details: {} });
    expect(byId.get('s15')).toMatchObject({ decision: 'deny', status: 'ok', reasons: ['bad word'] });
    expect(byId.get('s25')).toMatchObject({ decision: 'deny', status: 'guard_error' }); // failMode closed
    expect((byId.get('s25')!.error as { code: string }).code).toBeTruthy();
    expect(Object.keys(byId.get('s5')!).sort()).toEqual(['decision', 'details', 'id', 'layer', 'mode', 'reasons', 'rules', 'status']);

    // Everything decided: a second run skips all 30, and still exits 3 for the guard errors in --out.
    const again = await runBatch(['--policy', policy, '--in', input, '--out', out], env());
    expect(again.code, again.stderr).toBe(3);
    expect(parseSummary(again.stderr)).toMatchObject({ total: 30, skipped: 30, decided: 0, 'guard errors': 0 });
    expect(again.stderr).toMatch(/skipped: +30 \(already decided in --out; 8 of them guard errors\)/);
    expect(await readDecisions(out)).toHaveLength(30);
  });

  it('stops at an invalid line with exit 2 naming line 7, keeps earlier decisions, and resumes once fixed', async () => {
    const policy = join(dir, 'bad-policy.yaml');
    await writeFile(policy, policyYaml('batch-bad-line'));
    const input = join(dir, 'bad.jsonl');
    const out = join(dir, 'bad-out.jsonl');
    const good = (i: number) => JSON.stringify({ id: `b${i}`, input: i % 2 ? 'bad' : 'fine', output: '' });
    const lines = Array.from({ length: 10 }, (_, i) => good(i + 1));
    lines[6] = '{"id": "b7", "input": "oops"'; // line 7: not JSON
    await writeFile(input, `${lines.join('\n')}\n`);
    const vars = env();

    const first = await runBatch(['--policy', policy, '--in', input, '--out', out], vars);
    expect(first.code, first.stderr).toBe(2);
    expect(first.stderr).toContain('line 7');
    expect(first.stderr).toContain('not valid JSON');
    expect((await readDecisions(out)).map((d) => d.id).sort()).toEqual(['b1', 'b2', 'b3', 'b4', 'b5', 'b6']);

    lines[6] = JSON.stringify({ id: 'b7', output: 'no input' }); // line 7: missing input
    await writeFile(input, `${lines.join('\n')}\n`);
    const second = await runBatch(['--policy', policy, '--in', input, '--out', out], vars);
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toMatch(/line 7, field input/);
    expect(parseSummary(second.stderr)).toMatchObject({ skipped: 6, decided: 0 });

    lines[6] = good(7);
    await writeFile(input, `${lines.join('\n')}\n`);
    const third = await runBatch(['--policy', policy, '--in', input, '--out', out], vars);
    expect(third.code, third.stderr).toBe(0);
    expect(parseSummary(third.stderr)).toMatchObject({ total: 10, skipped: 6, decided: 4, allowed: 2, denied: 2 });
    const ids = (await readDecisions(out)).map((d) => d.id as string);
    expect(ids.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `b${i + 1}`).sort());
  });

  it('refuses a duplicate id and an unreadable input with exit 2', async () => {
    const policy = join(dir, 'dup-policy.yaml');
    await writeFile(policy, policyYaml('batch-dup'));
    const input = join(dir, 'dup.jsonl');
    await writeFile(input, ['{"id":"d1","input":"a","output":""}', '{"id":"d2","input":"b","output":""}', '{"id":"d1","input":"c","output":""}'].join('\n'));
    const dup = await runBatch(['--policy', policy, '--in', input, '--out', join(dir, 'dup-out.jsonl')], env());
    expect(dup.code, dup.stderr).toBe(2);
    expect(dup.stderr).toMatch(/line 3, field id: duplicate id 'd1'/);

    const missing = await runBatch(['--policy', policy, '--in', join(dir, 'nope.jsonl'), '--out', join(dir, 'x.jsonl')], env());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.jsonl: cannot read the input/);
  });

  it('exits 6 (UNAVAILABLE) when jobs are queued but no decision arrives (--remote with no workers)', async () => {
    const policy = join(dir, 'rails-policy.yaml');
    // Rails only: nothing to verify, so nothing waits for a worker before the jobs are queued.
    await writeFile(policy, 'id: batch-rails-only\nrails:\n  input:\n    injection: {}\n');
    const input = join(dir, 'idle.jsonl');
    const out = join(dir, 'idle-out.jsonl');
    await writeJobs(input, 5);
    const run = await runBatch(['--remote', '--idle-timeout', '1500', '--policy', policy, '--in', input, '--out', out], env());
    expect(run.code, run.stderr).toBe(6);
    expect(run.stderr).toMatch(/BATCH_STALLED: no decision arrived for \d+ s while 5 job\(s\) were queued/);
    expect(await readDecisions(out)).toEqual([]);
  });
});
