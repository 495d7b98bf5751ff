import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { ShardLayout } from '@guardagent/config';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';

const BIN = join(import.meta.dirname, '..', 'bin', 'guardagent.mjs');
const dir = mkdtempSync(join(tmpdir(), 'guardagent-cli-'));

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const policyFile = join(dir, 'policy.yaml');
writeFileSync(
  policyFile,
  `id: cli-hotels
requests: Users under 18 cannot book a hotel.
mode: compiled
program: |
  const age = Number((/age: (\\d+)/.exec(input) || [])[1]);
  return age < 18 ? { deny: true, reasons: ['under 18'] } : { deny: false, reasons: [] };
examples:
  - { input: "age: 12", label: 1 }
  - { input: "age: 32", label: 0 }
`,
);

describe('guardagent CLI', () => {
  it('--version prints the package version; the help lists every command; a misspelt command is refused with a suggestion', async () => {
    const version = await run(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: '0.1.0\n' });
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    const listed = [...help.stdout.matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1]);
    expect(listed).toEqual(['up', 'check', 'compile', 'batch', 'feedback', 'eval', 'demo', 'policy', 'tenants', 'approve', 'log', 'replay', 'memory', 'mcp', 'keys', 'shards', 'help']);
    const typo = await run(['bacth', '--in', 'x']);
    expect(typo.code).toBe(2); // INVALID: a usage mistake
    expect(typo.stderr).toMatch(/unknown command 'bacth'[\s\S]*Did you mean batch\?/);
    // A command loads alone and still knows its own options.
    const wrong = await run(['approve', '--token', 't', '--approver', 'ops', '--nope']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/unknown option '--nope'/);
  });

  it('check runs one job through the pipeline on a private redis-server and exits by decision', async () => {
    const job = join(dir, 'job.json');
    writeFileSync(job, JSON.stringify({ input: 'age: 15', output: 'book' }));
    const denied = await run(['check', '--policy', policyFile, '--job', job], { REDIS_URL: '' });
    expect(denied.code).toBe(1);
    expect(JSON.parse(denied.stdout)).toMatchObject({ decision: 'deny', status: 'ok', mode: 'compiled', reasons: ['under 18'] });
    writeFileSync(job, JSON.stringify({ input: 'age: 40' }));
    const allowed = await run(['check', '--policy', policyFile, '--job', job], { REDIS_URL: testRedisUrl(), GUARDAGENT_PREFIX: uniquePrefix('cli') });
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout).decision).toBe('allow');
  });

  it('rejects an invalid job naming the field, with exit code 2', async () => {
    const job = join(dir, 'bad-job.json');
    writeFileSync(job, JSON.stringify({ input: 'x', subject: { roles: 'admin' } }));
    const result = await run(['check', '--policy', policyFile, '--job', job], { REDIS_URL: testRedisUrl(), GUARDAGENT_PREFIX: uniquePrefix('cli') });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/VALIDATION_FAILED/);
    expect(result.stderr).toMatch(/subject\.id/);
  });

  it('compile prints the verification report', async () => {
    const result = await run(['compile', '--policy', policyFile], { REDIS_URL: testRedisUrl(), GUARDAGENT_PREFIX: uniquePrefix('cli') });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'promoted', report: { passed: true, total: 2 } });
  });

  it('eval --json prints the paper metrics for a bundled sample', async () => {
    const result = await run(['eval', '--benchmark', 'mind2web-sc', '--json'], { REDIS_URL: testRedisUrl(), GUARDAGENT_PREFIX: uniquePrefix('cli') });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ benchmark: 'mind2web-sc', mode: 'compiled', lpa: 100, ea: 100, fra: 100, llmCalls: 0 });
    expect(report.n).toBeGreaterThan(10);
  });

  it('eval --detectors --json measures the injection and PII detectors on their corpora (no Redis, no LLM)', async () => {
    const result = await run(['eval', '--detectors', '--json'], { REDIS_URL: '' });
    expect(result.code, result.stderr).toBe(0);
    const { injection, pii } = JSON.parse(result.stdout);
    expect(injection).toMatchObject({ detector: 'rails injection detector', threshold: 0.5 });
    expect(injection.splits.heldout.tpr).toBeGreaterThanOrEqual(0.6);
    expect(Object.keys(injection.families.heldout)).toContain('tensor-trust-hijacking');
    expect(pii.splits.heldout.f1).toBeGreaterThanOrEqual(0.9);
    expect(Object.keys(pii.kinds.heldout)).toEqual(expect.arrayContaining(['email', 'phone', 'card', 'iban', 'ssn', 'ip']));
    const both = await run(['eval', '--detectors', '--benchmark', 'eicu-ac']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/detectors: give either --detectors or --benchmark/);
  });

  it('demo (the README main command) moderates both bundled samples with no LLM and reports throughput', async () => {
    const result = await run(['demo', '--burst', '300'], { REDIS_URL: '', GUARDAGENT_LLM_BASE_URL: '', OPENAI_API_KEY: '' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/private redis-server/);
    expect(result.stdout).toMatch(/eicu-ac: program verified and promoted/);
    expect(result.stdout).toMatch(/mind2web-sc: program verified and promoted/);
    expect(result.stdout).toMatch(/0 guard errors/);
    const rows = result.stdout.split('\n').filter((l) => /^(eicu-ac|mind2web-sc) \(/.test(l));
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.trim().split(/\s+/).slice(-6, -1)).toEqual(['100.0', '100.0', '100.0', '100.0', '100.0']);
    expect(result.stdout).toMatch(/300 compiled checks in [\d.]+ s = \d+ checks\/s/);
  });

  it('memory seed is idempotent and memory list shows the demonstrations', async () => {
    const env = { REDIS_URL: testRedisUrl(), GUARDAGENT_PREFIX: uniquePrefix('cli') };
    const file = join(dir, 'demos.json');
    writeFileSync(file, JSON.stringify([{ input: 'a', output: 'b', plan: 'p', code: 'return { deny: false };' }]));
    expect(JSON.parse((await run(['memory', 'seed', '--policy', 'x', '--file', file], env)).stdout)).toMatchObject({ added: 1 });
    expect(JSON.parse((await run(['memory', 'seed', '--policy', 'x', '--file', file], env)).stdout)).toMatchObject({ added: 0, unchanged: 1 });
    const listed = JSON.parse((await run(['memory', 'list', '--policy', 'x'], env)).stdout);
    expect(listed.map((d: { input: string }) => d.input)).toEqual(['a']);
    const noRedis = await run(['memory', 'list', '--policy', 'x'], { REDIS_URL: '' });
    expect(noRedis.code).toBe(2);
    expect(noRedis.stderr).toMatch(/REDIS_URL/);
  });

  it("shards prints each shard's prefix and wait lists and a tenant's shard; memory works in the tenant's shard; another count is refused", async () => {
    const prefix = uniquePrefix('cli-shards');
    const env = { REDIS_URL: testRedisUrl(), GUARDAGENT_PREFIX: prefix, GUARDAGENT_SHARDS: '3' };
    const shown = await run(['shards', '--tenant', 'acme'], env);
    expect(shown.code).toBe(0);
    const report = JSON.parse(shown.stdout);
    const layout = new ShardLayout(prefix, 3);
    expect(report.count).toBe(3);
    expect(report.shards.map((s: { prefix: string }) => s.prefix)).toEqual(layout.prefixes);
    expect(report.shards[1].waitLists.executor).toBe(`${layout.prefixes[1]}:executor:wait`);
    expect(report.tenant).toEqual({ id: 'acme', shard: layout.shardOf('acme') });

    const file = join(dir, 'shard-demos.json');
    writeFileSync(file, JSON.stringify([{ input: 'a', output: 'b', plan: 'p', code: 'return { deny: false };' }]));
    expect(JSON.parse((await run(['memory', 'seed', '--policy', 'x', '--tenant', 'acme', '--file', file], env)).stdout)).toMatchObject({ added: 1 });
    const redis = new Redis(testRedisUrl());
    try {
      const stored = await redis.keys(`${prefix}*:acme:demos:x`);
      expect(stored).toEqual([`${layout.prefixOf('acme')}:acme:demos:x`]);
    } finally {
      redis.disconnect();
    }
    const other = await run(['shards'], { ...env, GUARDAGENT_SHARDS: '2' });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/GUARDAGENT_SHARDS is 2 but this deployment's data is laid out in 3 shard/);
  });
});
