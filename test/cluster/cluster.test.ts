import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { startRedisCluster, type LocalRedisCluster } from '@guardagent/local-redis';
import { parsePolicyText, type GuardJobInput, type PolicyInput } from '@guardagent/schemas';
import { startFakeLlmServer, type FakeLlmServer } from '@guardagent/testing';
import { REPO_ROOT, startTestStack, testLlm, waitFor, type TestStack } from '../helpers/pipeline-stack';
import { killExecutorMidChunk } from '../helpers/killed-chunk';

// The main end-to-end paths against a real local Redis Cluster of three primaries (no replicas):
// every key and queue under the prefix's hash tag, real BullMQ workers, real isolated-vm.
let cluster: LocalRedisCluster;
let target: string;
let llm: FakeLlmServer;
let stack: TestStack;

const refundDesk = parsePolicyText(readFileSync(join(REPO_ROOT, 'examples/policies/refund-desk.yaml'), 'utf8'));
const agent = { id: 'u-1', roles: ['support_agent'], attributes: { email: 'ann@example.com' } };
const refund = (amount: number, extra: Partial<GuardJobInput> = {}): GuardJobInput => ({
  policy: 'refund-desk',
  subject: agent,
  action: { kind: 'tool_call', tool: 'issue_refund', args: { user_id: 'u-1', amount, reason: 'broken item' } },
  ...extra,
});
const refunds: PolicyInput = {
  id: 'refunds',
  requests: 'Deny any refund over 100.',
  mode: 'compiled',
  program: "return Number(context.amount) > 100 ? { deny: true, reasons: ['over 100'] } : { deny: false };",
  examples: [
    { input: 'r', context: { amount: 500 }, label: 1 },
    { input: 'r', context: { amount: 5 }, label: 0 },
  ],
};
const hotelAge: PolicyInput = {
  id: 'hotel-age',
  requests: 'Users under 18 cannot book a hotel.',
  mode: 'per-request',
};

beforeAll(async () => {
  cluster = await startRedisCluster({ primaries: 3 });
  target = `redis-cluster://${cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
  llm = await startFakeLlmServer();
  stack = await startTestStack({ llm: testLlm(llm.baseURL), config: { redisUrl: target } });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  await llm?.close();
  await cluster?.stop();
});

describe('GuardAgent on a Redis Cluster (three primaries)', () => {
  it('keys every key under one hash tag, and the cluster really is three primaries', async () => {
    expect(stack.prefix).toMatch(/^\{e2e-[^{}]+\}$/);
    const admin = new Cluster(cluster.nodes);
    try {
      expect((await admin.cluster('INFO')) as string).toMatch(/cluster_state:ok/);
      expect(((await admin.cluster('SLOTS')) as unknown[]).length).toBe(3);
    } finally {
      admin.disconnect();
    }
  });

  it('compiles a supplied program and decides compiled checks, in chunks, with no LLM', async () => {
    const compiled = await stack.client.compile(refunds, { timeoutMs: 60_000 });
    expect(compiled.status).toBe('promoted');
    const decisions = await Promise.all([500, 20, 101, 7].map((amount) => stack.client.check({ policy: 'refunds', input: 'r', context: { amount } })));
    expect(decisions.map((d) => d.decision)).toEqual(['deny', 'allow', 'deny', 'allow']);
    expect(decisions.every((d) => d.status === 'ok' && d.mode === 'compiled' && d.usage.calls === 0)).toBe(true);
    expect(await stack.client.result(decisions[0].id)).toEqual(decisions[0]);
  });

  it('runs a per-request check through memory, planner, codegen and executor with the fake LLM', async () => {
    await stack.client.putPolicy(hotelAge);
    llm.enqueue(
      { content: '1. Key points: age >= 18 to book hotels.\n2. Applies.\n3. Output books.\n4. Compare age with 18.' },
      { content: "```javascript\nconst age = Number(/age: (\\d+)/.exec(input)[1]);\nreturn age < 18 ? { deny: true, reasons: ['under 18'] } : { deny: false, reasons: [] };\n```" },
    );
    const decision = await stack.client.check({ policy: 'hotel-age', input: 'Task: book a hotel\nage: 15', output: 'ACTION: CLICK Book' }, { timeoutMs: 30_000 });
    expect(decision).toMatchObject({ decision: 'deny', status: 'ok', mode: 'per-request', reasons: ['under 18'] });
    expect(decision.usage.calls).toBe(2);
  });

  it('holds a refund for approval; the approved token allows that call once', async () => {
    await stack.client.putPolicy(refundDesk);
    const pending = await stack.client.check(refund(80));
    expect(pending).toMatchObject({ decision: 'pending', layer: 'rails' });
    const token = pending.approval!.token;
    expect(await stack.client.approve(token, 'supervisor-7')).toBe('approved');
    const approved = await stack.client.check(refund(80, { context: { approvalToken: token } }));
    expect(approved).toMatchObject({ decision: 'allow', layer: 'rails' });
    const reused = await stack.client.check(refund(80, { context: { approvalToken: token } }));
    expect(reused.decision).not.toBe('allow');
  });

  it('decides a batch submitted in chunks, each check once', async () => {
    const jobs = Array.from({ length: 300 }, (_, i) => ({ policy: 'refunds', input: 'r', context: { amount: i }, idempotencyKey: `batch-${i}` }));
    const { ids } = await stack.client.submitMany(jobs, { batchId: 'cluster-batch' });
    expect(new Set(ids).size).toBe(300);
    const decisions = await waitFor(async () => {
      const found = await stack.client.resultsMany(ids);
      return found.every((d) => d !== null) ? found : null;
    }, 60_000, 'every batch check decided');
    expect(decisions.filter((d) => d!.decision === 'deny')).toHaveLength(199);
    // Re-submitting the same batch (as a resumed run does) queues nothing new and keeps the decisions.
    const again = await stack.client.submitMany(jobs, { batchId: 'cluster-batch' });
    expect(again.ids).toEqual(ids);
    expect(await stack.client.resultsMany(ids)).toEqual(decisions);
  });
});

describe("a killed executor's chunk on a Redis Cluster", () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });

  it('is finished by another executor process, with one decision per check', async () => {
    const own = await startTestStack({ stages: [], config: { redisUrl: target }, client: { chunkLingerMs: 50 } });
    try {
      const env = {
        REDIS_URL: target,
        GUARDAGENT_PREFIX: own.prefix.slice(1, -1),
        GUARDAGENT_LOCK_DURATION_MS: '3000',
        GUARDAGENT_STALLED_INTERVAL_MS: '500',
        GUARDAGENT_SANDBOX_CPU_MS: '20000',
        GUARDAGENT_SANDBOX_WALL_MS: '20000',
      };
      await killExecutorMidChunk(own, env, children);
    } finally {
      await own.stop();
    }
  });
});
