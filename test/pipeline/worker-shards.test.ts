import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@guardagent/config';
import { QueueTransport } from '@guardagent/client/queue';
import { createRuntime, type Runtime } from '@guardagent/pipeline';
import { testRedisUrl, uniquePrefix, waitFor } from '@guardagent/testing';
import { refundsPolicy } from '../helpers/refunds-policy';
import { silentLogger } from '@guardagent/telemetry';

// Workers pinned to shards (GUARDAGENT_WORKER_SHARDS): a process serves only its shards' queues,
// so a tenant's checks wait until some process serves the tenant's shard, then are decided.
const refunds = refundsPolicy;

const prefix = uniquePrefix('pinned');
const base = { redisUrl: testRedisUrl(), prefix, shards: 2 };
const redis = new Redis(testRedisUrl());
const runtimes: Runtime[] = [];
const clients: QueueTransport[] = [];
let first: Runtime;

beforeAll(async () => {
  first = await createRuntime(loadConfig({}, { ...base, workerShards: [0] }), { llm: null, logger: silentLogger });
  runtimes.push(first);
  await Promise.all(first.startWorkers(['executor', 'memory']).map((worker) => worker.waitUntilReady()));
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all(runtimes.map((runtime) => runtime.close()));
  redis.disconnect();
});

/** A tenant of the given shard, with its client. */
async function tenantOf(shard: number): Promise<QueueTransport> {
  let i = 0;
  while (first.layout.shardOf(`pinned-${i}`) !== shard) i++;
  const client = await QueueTransport.connect({ redisUrl: base.redisUrl, prefix, tenant: `pinned-${i}` });
  clients.push(client);
  return client;
}

describe('GUARDAGENT_WORKER_SHARDS', () => {
  it("serves only its shards' queues; another process serving the rest decides the other tenants' checks", async () => {
    const executors = first.shards.map((shard) => new Queue('executor', { connection: redis, prefix: shard.prefix }));
    try {
      expect(await Promise.all(executors.map((queue) => queue.getWorkersCount()))).toEqual([1, 0]);
      const served = await tenantOf(0);
      const waiting = await tenantOf(1);
      expect((await served.compile(refunds, { timeoutMs: 30_000 })).status).toBe('promoted');
      expect((await served.check({ policy: 'refunds', input: 'r', context: { amount: 500 } })).decision).toBe('deny');

      const compiled = waiting.compile(refunds, { timeoutMs: 30_000 });
      // Shard 1's compile job waits: no process serves shard 1 yet.
      await waitFor(async () => (await executors[1].getJobCounts('waiting')).waiting >= 1, 10_000, "shard 1's job to wait");
      const second = await createRuntime(loadConfig({}, { ...base, workerShards: [1] }), { llm: null, logger: silentLogger });
      runtimes.push(second);
      second.startWorkers(['executor', 'memory']);
      expect((await compiled).status).toBe('promoted');
      expect((await waiting.check({ policy: 'refunds', input: 'r', context: { amount: 5 } })).decision).toBe('allow');
      expect(await Promise.all(executors.map((queue) => queue.getWorkersCount()))).toEqual([1, 1]);
    } finally {
      await Promise.all(executors.map((queue) => queue.close()));
    }
  });
});
