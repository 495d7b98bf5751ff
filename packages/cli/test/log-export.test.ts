import { afterAll, beforeAll, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { ResultStore } from '@guardagent/queue';
import type { Decision } from '@guardagent/schemas';
import { testDecision, testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { deletePrefix, runCli } from './batch-helpers';

const prefix = uniquePrefix('log-export');
let redis: Redis;

const cli = (args: string[]) => runCli(args, { REDIS_URL: testRedisUrl(), GUARDAGENT_PREFIX: prefix });

const decision = (id: string, policy: string): Decision => testDecision(id, { policy: { id: policy, version: '1', digest: 'd' }, reasons: ['r'], rules: ['x'], timings: { total: 1 } });
const entry = (d: Decision) => JSON.stringify({ id: d.id, at: d.createdAt, policy: d.policy, job: { input: `in ${d.id}`, output: '', context: {} }, decision: d.decision, status: d.status, layer: d.layer, mode: d.mode, reasons: d.reasons, rules: d.rules, timings: d.timings });

beforeAll(async () => {
  redis = new Redis(testRedisUrl());
  const store = new ResultStore(redis, prefix, 600);
  for (const [id, policy] of [['a1', 'alpha'], ['b1', 'beta'], ['a2', 'alpha']]) {
    const d = decision(id, policy);
    await store.saveDecisions([{ decision: d, tenant: 'default', replyTo: null, batchId: null, logEntry: entry(d) }]);
  }
});
afterAll(async () => {
  await deletePrefix(testRedisUrl(), prefix);
  redis?.disconnect();
});

it("guardagent log export prints a policy's recorded decisions as JSON lines, oldest first", async () => {
  const run = await cli(['log', 'export', '--policy', 'alpha', '--since', '1h']);
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: string; job: { input: string } });
  expect(lines.map((l) => [l.id, l.job.input])).toEqual([
    ['a1', 'in a1'],
    ['a2', 'in a2'],
  ]);
  expect(run.stderr).toContain('exported 2 decisions');
});

it('names an option it cannot read, and exports nothing', async () => {
  const run = await cli(['log', 'export', '--since', 'last tuesday']);
  expect(run.code).not.toBe(0);
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(/--since/);
});
