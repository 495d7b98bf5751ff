import { Job, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DECIDED_RETURN_VALUE } from '@guardagent/pipeline';
import { waitFor } from '@guardagent/testing';
import { refundPolicy, startFixture, type GatewayFixture } from './gateway-fixture';

// No stage workers, so no sweeper: only the gateway's read can answer the failed check.
let f: GatewayFixture;
let connection: Redis;

beforeAll(async () => {
  f = await startFixture({ stages: [] });
  connection = new Redis(f.config.redisUrl as string, { maxRetriesPerRequest: null });
  const put = await f.call('/v1/policies/refunds', { method: 'PUT', body: refundPolicy() });
  expect(put.status).toBe(200);
});
afterAll(async () => {
  connection?.disconnect();
  await f?.close();
});

describe('a check BullMQ failed for good with no answer written', () => {
  it('is answered fail-closed by the next read instead of reading as running', async () => {
    // A bare BullMQ worker fails the check as ours would when the answer's write is refused.
    const bare = new Worker('executor', async () => {
      throw new Error('OOM command not allowed when used memory > maxmemory');
    }, { connection, prefix: f.config.prefix });
    try {
      const queued = await f.call('/v1/checks?wait=0', { body: { policy: 'refunds', input: 'refund', context: { amount: 20 } } });
      expect(queued.status).toBe(202);
      const { id } = await queued.json();
      await waitFor(async () => (await Job.fromId(bare, id))?.isFailed(), 15_000, 'the check to fail for good');

      const read = await f.call(`/v1/checks/${id}`);
      expect(read.status).toBe(200);
      const decision = await read.json();
      expect(decision).toMatchObject({ id, decision: 'deny', status: 'guard_error', error: { code: 'JOB_FAILED' } });
      expect(decision.reasons.join(' ')).toMatch(/OOM command not allowed/);
      // Stored, so every later read gives the same answer.
      expect(await (await f.call(`/v1/checks/${id}`)).json()).toEqual(decision);
    } finally {
      await bare.close();
    }
  });

  it("still reads as running while the check waits in the queue, and 404 for another tenant's id", async () => {
    const queued = await f.call('/v1/checks?wait=0', { body: { policy: 'refunds', input: 'refund', context: { amount: 20 } } });
    const { id } = await queued.json();
    const read = await f.call(`/v1/checks/${id}`);
    expect(read.status).toBe(202);
    expect(await read.json()).toEqual({ id, status: 'running' });

    const tenant = await f.call('/v1/tenants', { body: { id: 'other-tenant' } });
    expect(tenant.status).toBe(201);
    const { apiKey: key } = await tenant.json();
    expect((await f.call(`/v1/checks/${id}`, { key })).status).toBe(404);
  });
});

describe('a check decided, whose decision Redis then lost', () => {
  it('reads as DECISION_LOST (404), not as running for ever', async () => {
    // A bare BullMQ worker completes the check as the executor does after storing its decision
    // ('decision'); the decision itself never reaches Redis, as after an AOF everysec crash that
    // kept the completion but not the decision written just before it.
    const bare = new Worker('executor', async () => DECIDED_RETURN_VALUE, { connection, prefix: f.config.prefix });
    try {
      const queued = await f.call('/v1/checks?wait=0', { body: { policy: 'refunds', input: 'refund', context: { amount: 20 } } });
      const { id } = await queued.json();
      await waitFor(async () => (await Job.fromId(bare, id))?.isCompleted(), 15_000, 'the check to complete');
      const read = await f.call(`/v1/checks/${id}`);
      expect(read.status).toBe(404);
      const body = await read.json();
      expect(body.error).toMatchObject({ code: 'DECISION_LOST', details: { kind: 'check', id } });
      expect(body.error.message).toMatch(/decided, but Redis no longer has its decision/);
    } finally {
      await bare.close();
    }
  });
});
