import { Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_CHUNK_JOB, checksCarried } from '@guardagent/queue';
import { waitFor } from '@guardagent/testing';
import { refundPolicy, startFixture, type GatewayFixture } from './gateway-fixture';

// No stage workers: the checks wait in the queue until a test's bare worker takes their chunk.
// A linger long enough that two requests sent together share one chunk job, also on a loaded
// machine (40 ms once split them into two jobs while the whole suite ran).
let f: GatewayFixture;
let connection: Redis;

beforeAll(async () => {
  f = await startFixture({ stages: [], config: { chunks: { max: 128, lingerMs: 250 } } });
  connection = new Redis(f.config.redisUrl as string, { maxRetriesPerRequest: null });
  expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: refundPolicy() })).status).toBe(200);
});
afterAll(async () => {
  connection?.disconnect();
  await f?.close();
});

/** Two checks queued together (wait=0): their ids, and the chunk job that carries both. */
async function twoChunkedChecks(): Promise<{ ids: string[]; chunk: Job }> {
  const replies = await Promise.all([20, 30].map((amount) => f.call('/v1/checks?wait=0', { body: { policy: 'refunds', input: 'refund', context: { amount } } })));
  expect(replies.map((r) => r.status)).toEqual([202, 202]);
  const ids = (await Promise.all(replies.map((r) => r.json()))).map((body: { id: string }) => body.id);
  const queue = new Queue('executor', { connection, prefix: f.config.prefix });
  const jobs = await queue.getJobs(['waiting', 'active', 'completed', 'failed']);
  const chunk = jobs.find((job) => job.name === CHECK_CHUNK_JOB && checksCarried(job).some((c) => (c as { jobId: string }).jobId === ids[0]));
  expect(chunk, 'one chunk job carries both checks').toBeDefined();
  expect(checksCarried(chunk!).map((c) => (c as { jobId: string }).jobId).sort()).toEqual([...ids].sort());
  return { ids, chunk: chunk! };
}

describe('GET /v1/checks/:id for checks that travel in a chunk job', () => {
  it("reads as running while the chunk waits, 404 for another tenant's key, and fail-closed once the chunk failed for good", async () => {
    const { ids, chunk } = await twoChunkedChecks();
    for (const id of ids) {
      const read = await f.call(`/v1/checks/${id}`);
      expect(read.status).toBe(202);
      expect(await read.json()).toEqual({ id, status: 'running' });
    }
    const tenant = await (await f.call('/v1/tenants', { body: { id: 'chunk-peek' } })).json();
    expect((await f.call(`/v1/checks/${ids[0]}`, { key: tenant.apiKey })).status).toBe(404);

    const bare = new Worker('executor', async () => {
      throw new Error('OOM command not allowed when used memory > maxmemory');
    }, { connection, prefix: f.config.prefix });
    try {
      await waitFor(async () => (await Job.fromId(bare, chunk.id!))?.isFailed(), 15_000, 'the chunk to fail for good');
      const first = await f.call(`/v1/checks/${ids[0]}`);
      expect(first.status).toBe(200);
      expect(await first.json()).toMatchObject({ id: ids[0], decision: 'deny', status: 'guard_error', error: { code: 'JOB_FAILED' } });
      // Answering the failed chunk answered each of its checks.
      const second = await f.call(`/v1/checks/${ids[1]}`);
      expect(await second.json()).toMatchObject({ id: ids[1], decision: 'deny', status: 'guard_error', error: { code: 'JOB_FAILED' } });
    } finally {
      await bare.close();
    }
  });

  it('reads as DECISION_LOST when the chunk completed having stored the decision, and Redis then lost it', async () => {
    const { ids, chunk } = await twoChunkedChecks();
    // Completes as the executor does after storing both decisions, which never reach Redis here.
    const bare = new Worker('executor', async () => ({ kind: 'chunk', checks: 2, routed: [ids[1]] }), { connection, prefix: f.config.prefix });
    try {
      await waitFor(async () => (await Job.fromId(bare, chunk.id!))?.isCompleted(), 15_000, 'the chunk to complete');
      const lost = await f.call(`/v1/checks/${ids[0]}`);
      expect(lost.status).toBe(404);
      expect((await lost.json()).error).toMatchObject({ code: 'DECISION_LOST' });
      // A check the chunk routed on to the LLM path is still on its way there.
      expect((await f.call(`/v1/checks/${ids[1]}`)).status).toBe(202);
    } finally {
      await bare.close();
    }
  });
});
