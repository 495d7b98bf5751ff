/// <reference path="../../packages/config/src/types/cluster-key-slot.d.ts" />
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import calculateSlot from 'cluster-key-slot';
import { QueueTransport } from '@guardagent/client/queue';
import { keys } from '@guardagent/queue';
import { startRedisCluster, type LocalRedisCluster } from '@guardagent/local-redis';
import { parsePolicyText, type GuardJobInput, type PolicyInput } from '@guardagent/schemas';
import { startFakeLlmServer, type FakeLlmServer } from '@guardagent/testing';
import { REPO_ROOT, startTestStack, testLlm, waitFor, type TestStack } from '../helpers/pipeline-stack';
import { killExecutorMidChunk } from '../helpers/killed-chunk';
import { refundsPolicy } from '../helpers/refunds-policy';

// The main end-to-end paths against a real local Redis Cluster of three primaries (no replicas),
// in one shard (every key and queue under the prefix's hash tag) and in three (each tenant's keys
// and queues under its shard's tag, the shards on different primaries); real BullMQ workers, real
// isolated-vm.
let cluster: LocalRedisCluster;
let target: string;
let llm: FakeLlmServer;

const refundDesk = parsePolicyText(readFileSync(join(REPO_ROOT, 'examples/policies/refund-desk.yaml'), 'utf8'));
const agent = { id: 'u-1', roles: ['support_agent'], attributes: { email: 'ann@example.com' } };
const refund = (amount: number, extra: Partial<GuardJobInput> = {}): GuardJobInput => ({
  policy: 'refund-desk',
  subject: agent,
  action: { kind: 'tool_call', tool: 'issue_refund', args: { user_id: 'u-1', amount, reason: 'broken item' } },
  ...extra,
});
const refunds = refundsPolicy;
const hotelAge: PolicyInput = {
  id: 'hotel-age',
  requests: 'Users under 18 cannot book a hotel.',
  mode: 'per-request',
};

beforeAll(async () => {
  cluster = await startRedisCluster({ primaries: 3 });
  target = `redis-cluster://${cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
  llm = await startFakeLlmServer();
}, 90_000);
afterAll(async () => {
  await llm?.close();
  await cluster?.stop();
});

/** The port of the primary that owns a key's slot. */
async function ownerOf(admin: Cluster, key: string): Promise<number> {
  const slot = calculateSlot(key);
  const range = (await admin.cluster('SLOTS')).find(([low, high]) => slot >= low && slot <= high);
  return range![2][1];
}

for (const shards of [1, 3]) describe(`GuardAgent on a Redis Cluster (three primaries), ${shards} shard(s)`, () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ llm: testLlm(llm.baseURL), config: { redisUrl: target, shards } });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('keys every key under a hash tag of its shard, and the cluster really is three primaries', async () => {
    expect(stack.prefix).toMatch(/^\{e2e-[^{}]+\}$/);
    const shardPrefixes = stack.runtime!.shards.map((shard) => shard.prefix);
    expect(shardPrefixes).toHaveLength(shards);
    for (const prefix of shardPrefixes) expect(prefix).toMatch(/^\{e2e-[^{}]+\}$/);
    expect(stack.client.prefix).toBe(stack.runtime!.shardOf('default').prefix);
    const admin = new Cluster(cluster.nodes);
    try {
      expect((await admin.cluster('INFO')) as string).toMatch(/cluster_state:ok/);
      expect(((await admin.cluster('SLOTS')) as unknown[]).length).toBe(3);
      // Three shards sit on three different primaries.
      expect(new Set(await Promise.all(shardPrefixes.map((prefix) => ownerOf(admin, prefix)))).size).toBe(shards);
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

  if (shards > 1) {
    it("decides tenants of every shard, each tenant's decisions and queue jobs on its shard's primary", async () => {
      const layout = stack.runtime!.layout;
      const tenants: string[] = [];
      for (let i = 0; tenants.length < shards; i++) if (!tenants.some((t) => layout.shardOf(t) === layout.shardOf(`shop-${i}`))) tenants.push(`shop-${i}`);
      const admin = new Cluster(cluster.nodes);
      const owners = new Set<number>();
      try {
        for (const tenant of tenants) {
          const client = await QueueTransport.connect({ redisUrl: target, prefix: stack.prefix, tenant });
          try {
            expect((await client.compile(refunds, { timeoutMs: 60_000 })).status).toBe('promoted');
            const decisions = await Promise.all([500, 7].map((amount) => client.check({ policy: 'refunds', input: 'r', context: { amount } })));
            expect(decisions.map((d) => d.decision)).toEqual(['deny', 'allow']);
            const prefix = layout.prefixOf(tenant);
            expect(client.prefix).toBe(prefix);
            const decisionKey = keys(prefix).decision(tenant, decisions[0].id);
            expect(await admin.exists(decisionKey)).toBe(1);
            const owner = await ownerOf(admin, decisionKey);
            expect(await ownerOf(admin, `${prefix}:executor:id`)).toBe(owner);
            owners.add(owner);
          } finally {
            await client.close();
          }
        }
      } finally {
        admin.disconnect();
      }
      expect(owners.size).toBe(shards);
    });
  }
});

describe("a killed executor's chunk on a Redis Cluster in three shards", () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });

  it('is finished by another executor process, with one decision per check', async () => {
    const own = await startTestStack({ stages: [], config: { redisUrl: target, shards: 3 }, client: { chunkLingerMs: 50 } });
    try {
      const env = {
        REDIS_URL: target,
        GUARDAGENT_PREFIX: own.prefix.slice(1, -1),
        GUARDAGENT_SHARDS: '3',
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
