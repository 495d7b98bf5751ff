/// <reference path="../../packages/config/src/types/cluster-key-slot.d.ts" />
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, Redis } from 'ioredis';
import calculateSlot from 'cluster-key-slot';
import { HttpTransport } from '@guardagent/client';
import { QueueTransport } from '@guardagent/client/queue';
import { freePort, startRedisCluster, type LocalRedisCluster } from '@guardagent/local-redis';
import { isRedisConnectionError, keys, redisTransientKind, waitUntilReady } from '@guardagent/queue';
import { startGateway, type Gateway } from '@guardagent/service-gateway';
import { startTestStack, waitFor, type TestStack } from '../helpers/pipeline-stack';
import { refundsPolicy } from '../helpers/refunds-policy';
import { silentLogger } from '@guardagent/telemetry';

// A Redis Cluster failing over answers commands with MOVED, TRYAGAIN or CLUSTERDOWN, and ioredis's
// Cluster gives up on one with "Too many Cluster redirections" or ClusterAllFailedError. These
// are produced here by a real local cluster (three primaries), classified as passing failures, and
// ridden out: the client retries its submit, the gateway answers 503 with Retry-After, and the
// HTTP SDK retries that. A slot with no primary is made by deleting it from its owner (CLUSTER
// DELSLOTS), which then answers CLUSTERDOWN as a cluster does until a replica is promoted.

let cluster: LocalRedisCluster;
let target: string;
/** One connection per node, by port. */
const nodes = new Map<number, Redis>();

beforeAll(async () => {
  cluster = await startRedisCluster({ primaries: 3 });
  target = `redis-cluster://${cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
  for (const node of cluster.nodes) nodes.set(node.port, new Redis(node.port, node.host, { maxRetriesPerRequest: 0 }));
}, 90_000);
afterAll(async () => {
  for (const node of nodes.values()) node.disconnect();
  await cluster?.stop();
});

/** The port of the primary serving `slot`, and its node id. */
async function ownerOfSlot(slot: number): Promise<{ port: number; id: string }> {
  const any = nodes.values().next().value!;
  const ranges = await any.cluster('SLOTS');
  const range = ranges.find(([low, high]) => slot >= low && slot <= high)!;
  const [, port, id] = range[2]!;
  return { port, id };
}

/** Takes `slot` from its owner (the cluster now has no primary for it) until the returned function gives it back. */
async function withoutPrimary(slot: number): Promise<() => Promise<void>> {
  const owner = await ownerOfSlot(slot);
  const node = nodes.get(owner.port)!;
  await node.cluster('DELSLOTS', slot);
  let restored: Promise<void> | null = null;
  return () =>
    (restored ??= (async () => {
      await node.cluster('ADDSLOTS', slot);
      await waitFor(async () => ((await node.cluster('INFO')) as string).includes('cluster_state:ok'), 10_000, 'the cluster is ok again');
    })());
}

describe('Redis Cluster failures, as a real cluster raises them, are passing failures (failover)', () => {
  it('MOVED: a command sent to a node that does not serve its slot', async () => {
    const key = 'moved:{m}';
    const owner = await ownerOfSlot(calculateSlot(key));
    const other = [...nodes.entries()].find(([port]) => port !== owner.port)![1];
    const moved = await other.set(key, '1').catch((e: unknown) => e);
    expect(moved).toMatchObject({ name: 'ReplyError', message: expect.stringMatching(/^MOVED \d+ /) });
    expect(redisTransientKind(moved)).toBe('failover');
    expect(isRedisConnectionError(moved)).toBe(false);
  });

  it('TRYAGAIN: a multi-key command on a slot being migrated, with some of its keys moved', async () => {
    const slot = calculateSlot('{t}');
    const source = await ownerOfSlot(slot);
    const [targetPort, targetNode] = [...nodes.entries()].find(([port]) => port !== source.port)!;
    const targetId = (await targetNode.cluster('MYID')) as string;
    const sourceNode = nodes.get(source.port)!;
    await sourceNode.set('{t}a', '1');
    try {
      await targetNode.cluster('SETSLOT', slot, 'IMPORTING', source.id);
      await sourceNode.cluster('SETSLOT', slot, 'MIGRATING', targetId);
      const tryAgain = await sourceNode.mget('{t}a', '{t}b').catch((e: unknown) => e);
      expect(tryAgain).toMatchObject({ name: 'ReplyError', message: expect.stringMatching(/^TRYAGAIN /) });
      expect(redisTransientKind(tryAgain)).toBe('failover');
      // ASK: the key is not on the source any more.
      const ask = await sourceNode.get('{t}b').catch((e: unknown) => e);
      expect(ask).toMatchObject({ message: expect.stringMatching(/^ASK \d+ /) });
      expect(redisTransientKind(ask)).toBe('failover');
    } finally {
      await sourceNode.cluster('SETSLOT', slot, 'STABLE');
      await targetNode.cluster('SETSLOT', slot, 'STABLE');
      await sourceNode.del('{t}a');
    }
    expect(targetPort).not.toBe(source.port);
  });

  it('CLUSTERDOWN from the node, and "Too many Cluster redirections" from ioredis, while a slot has no primary', async () => {
    const key = 'down:{d}';
    const slot = calculateSlot(key);
    const owner = await ownerOfSlot(slot);
    const client = new Cluster(cluster.nodes, { enableOfflineQueue: false, redisOptions: { maxRetriesPerRequest: 3 } });
    await waitUntilReady(client as unknown as Redis);
    await client.set(key, 'before');
    const restore = await withoutPrimary(slot);
    try {
      const down = await nodes.get(owner.port)!.get(key).catch((e: unknown) => e);
      expect(down).toMatchObject({ name: 'ReplyError', message: expect.stringMatching(/^CLUSTERDOWN /) });
      expect(redisTransientKind(down)).toBe('failover');
      const gaveUp = await client.get(key).catch((e: unknown) => e);
      expect(gaveUp).toMatchObject({ message: expect.stringMatching(/^Too many Cluster redirections\. Last error: /) });
      expect(redisTransientKind(gaveUp)).toBe('failover');
    } finally {
      await restore();
    }
    expect(await client.get(key)).toBe('before');
    client.disconnect();
  });

  it('ClusterAllFailedError: no seed node answers a slot refresh', async () => {
    const nowhere = new Cluster([{ host: '127.0.0.1', port: await freePort() }], { clusterRetryStrategy: () => null, enableOfflineQueue: false });
    const events: unknown[] = [];
    nowhere.on('error', (error) => events.push(error));
    const failed = await nowhere.get('x').catch((e: unknown) => e);
    await waitFor(async () => events.length > 0, 5_000, 'an error event');
    nowhere.disconnect();
    expect(events[0]).toMatchObject({ name: 'ClusterAllFailedError' });
    expect(redisTransientKind(events[0])).toBe('failover');
    // The command itself was refused before it was sent: the cluster client is not ready.
    expect(redisTransientKind(failed)).toBe('connection');
  });
});

describe('a slot without a primary under live traffic (one shard)', () => {
  let stack: TestStack;
  let slot: number;
  beforeAll(async () => {
    stack = await startTestStack({ stages: ['executor'], config: { redisUrl: target, shards: 1 } });
    slot = calculateSlot(stack.prefix);
    expect((await stack.client.compile(refundsPolicy, { timeoutMs: 60_000 })).status).toBe('promoted');
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('the client retries its submit as it does a lost connection: the job is queued once and decided', async () => {
    const retried: unknown[] = [];
    let restore: (() => Promise<void>) | null = null;
    // The slot comes back once the client has seen a failure and is about to try again.
    const client = await QueueTransport.connect({
      redisUrl: target,
      prefix: stack.prefix,
      onSubmitRetry: (error) => {
        retried.push(error);
        void restore?.();
      },
    });
    try {
      restore = await withoutPrimary(slot);
      const { id } = await client.submit({ policy: 'refunds', input: 'r', context: { amount: 500 }, idempotencyKey: 'failover-1' });
      expect(retried.length).toBeGreaterThan(0);
      expect(retried.every((error) => redisTransientKind(error) === 'failover')).toBe(true);
      const decision = await waitFor(() => client.result(id), 30_000, 'the decision');
      expect(decision.decision).toBe('deny');
      const jobs = await stack.runtime!.shards[0].queues.queue('executor').getJobCounts('completed', 'waiting', 'active');
      expect(jobs.completed + jobs.waiting + jobs.active).toBeGreaterThan(0);
    } finally {
      await restore?.();
      await client.close();
    }
  }, 60_000);

  it('without retries the same failure reaches the caller, classified as a failover', async () => {
    const client = await QueueTransport.connect({ redisUrl: target, prefix: stack.prefix, submitAttempts: 1 });
    const restore = await withoutPrimary(slot);
    try {
      const refused = await client.submit({ policy: 'refunds', input: 'r', context: { amount: 5 }, idempotencyKey: 'failover-2' }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(Error);
      expect(redisTransientKind(refused)).toBe('failover');
    } finally {
      await restore();
      await client.close();
    }
  }, 60_000);

  it('the gateway answers 503 with Retry-After, and the HTTP SDK retries until the slot is back', async () => {
    const adminKey = 'failover-admin-key-0123456789abcdef';
    const gateway: Gateway = await startGateway({ config: { ...stack.config, adminKey }, port: 0, logger: silentLogger });
    const seen: Array<{ status: number; retryAfter: string | null; body: string }> = [];
    let restore: (() => Promise<void>) | null = null;
    // Records every answer; the slot comes back once the gateway has answered a 503.
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const isCheck = String(input).includes('/v1/checks?');
      if (isCheck) {
        const body = await response.clone().text();
        seen.push({ status: response.status, retryAfter: response.headers.get('retry-after'), body });
        if (response.status === 503) await restore?.();
      }
      return response;
    };
    const sdk = new HttpTransport({ baseUrl: gateway.url, apiKey: adminKey, fetch: recording });
    try {
      // A check first, so the gateway's transport is connected and its policy cached.
      expect((await sdk.check({ policy: 'refunds', input: 'r', context: { amount: 1 } })).decision).toBe('allow');
      seen.length = 0;
      restore = await withoutPrimary(slot);
      const decision = await sdk.check({ policy: 'refunds', input: 'r', context: { amount: 700 }, idempotencyKey: 'failover-http' }, { timeoutMs: 60_000 });
      expect(decision.decision).toBe('deny');
      expect(seen.map((s) => s.status)).toEqual([503, 200]);
      expect(seen[0].retryAfter).toBe('1');
      expect(JSON.parse(seen[0].body).error).toMatchObject({ code: 'UNAVAILABLE', details: { redis: 'failover', retryAfterSeconds: 1 } });
      // One job, one decision, for the key, whichever try queued it.
      const decisions = await stack.client.resultsMany([decision.id]);
      expect(decisions[0]?.id).toBe(decision.id);
      expect(await stack.runtime!.redis.exists(keys(stack.prefix).idempotencyBinding('default', decision.id))).toBe(1);
    } finally {
      await restore?.();
      await sdk.close();
      await gateway.close();
    }
  }, 90_000);
});
