import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { QueueTransport } from '@guardagent/client/queue';
import { ShardLayout, loadConfig } from '@guardagent/config';
import { createRuntime } from '@guardagent/pipeline';
import { Queue } from 'bullmq';
import { keys } from '@guardagent/queue';
import { testRedisUrl, waitFor } from '@guardagent/testing';
import { startGateway } from '../src/index';
import { refundPolicy, startFixture, type GatewayFixture } from './gateway-fixture';
import { silentLogger } from '@guardagent/telemetry';

// A deployment in three shards on one Redis: each tenant's data and queues under its shard's
// prefix, every route reading the tenant's shard, and processes that disagree on the count refused.
const SHARDS = 3;
const refundDesk = parse(readFileSync(join(import.meta.dirname, '../../../examples/policies/refund-desk.yaml'), 'utf8'));
const refund = (context: Record<string, unknown> = {}) => ({
  policy: 'refund-desk',
  subject: { id: 'u-1', roles: ['support_agent'], attributes: { email: 'ann@example.com' } },
  action: { kind: 'tool_call', tool: 'issue_refund', args: { user_id: 'u-1', amount: 80, reason: 'broken item' } },
  context,
});

let f: GatewayFixture;
let layout: ShardLayout;
let redis: Redis;
/** One tenant in each shard: tenant id → its API key. */
const tenants = new Map<string, string>();
/** The ids of each tenant's decided checks. */
const decided = new Map<string, string[]>();

beforeAll(async () => {
  f = await startFixture({ config: { shards: SHARDS, decisionLog: { record: 'all', maxEntries: 1000, maxAgeSeconds: 3600 } } });
  layout = new ShardLayout(f.config.prefix, SHARDS);
  redis = new Redis(f.config.redisUrl!);
  const wanted = new Set(Array.from({ length: SHARDS }, (_, i) => i));
  for (let i = 0; wanted.size > 0; i++) {
    const id = `shop-${i}`;
    if (!wanted.delete(layout.shardOf(id))) continue;
    tenants.set(id, (await (await f.call('/v1/tenants', { body: { id } })).json()).apiKey);
  }
  for (const key of tenants.values()) {
    expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: refundPolicy(), key })).status).toBe(200);
    expect((await (await f.call('/v1/policies/refunds/compile', { method: 'POST', key })).json()).status).toBe('promoted');
    expect((await f.call('/v1/policies/refund-desk', { method: 'PUT', body: refundDesk, key })).status).toBe(200);
  }
}, 60_000);
afterAll(async () => {
  redis?.disconnect();
  await f?.close();
});

describe('a gateway and workers in three shards on one Redis', () => {
  it("decides each tenant's checks in the tenant's shard: its decisions, policies and queue jobs there and nowhere else", async () => {
    for (const [tenant, key] of tenants) {
      const [big, small] = await Promise.all([500, 20].map(async (amount) => (await f.call('/v1/checks', { body: { policy: 'refunds', input: 'refund', context: { amount } }, key })).json()));
      expect([big.decision, small.decision], JSON.stringify(small)).toEqual(['deny', 'allow']);
      expect(big.mode).toBe('compiled');
      decided.set(tenant, [big.id, small.id]);
      const own = layout.prefixOf(tenant);
      for (const prefix of layout.prefixes) {
        expect(await redis.exists(keys(prefix).decision(tenant, big.id))).toBe(prefix === own ? 1 : 0);
        expect(await redis.exists(keys(prefix).policyCurrent(tenant, 'refunds'))).toBe(prefix === own ? 1 : 0);
      }
      const queue = new Queue('executor', { connection: redis, prefix: own });
      expect((await queue.getJobs(['completed'])).some((job) => JSON.stringify(job.data).includes(big.id))).toBe(true);
      // A tenant reads only its own check, whatever shard the other's is in.
      for (const [other, otherKey] of tenants) if (other !== tenant) expect((await f.call(`/v1/checks/${big.id}`, { key: otherKey })).status).toBe(404);
      expect((await (await f.call(`/v1/checks/${big.id}`, { key })).json()).decision).toBe('deny');
    }
    // The deployment's own records (tenants, the layout) stay under its prefix.
    expect(await redis.get(keys(f.config.prefix).shardLayout())).toBe(String(SHARDS));
    for (const tenant of tenants.keys()) expect(await redis.exists(keys(f.config.prefix).tenant(tenant))).toBe(1);
  });

  it("holds a call for approval and allows it once after the tenant's operator approves, in every shard", async () => {
    for (const key of tenants.values()) {
      const pending = await (await f.call('/v1/checks', { body: refund(), key })).json();
      expect(pending).toMatchObject({ decision: 'pending', layer: 'rails' });
      const token = pending.approval.token as string;
      const approved = await f.call('/v1/approvals', { body: { token, approver: 'ops-lead' }, key });
      expect(await approved.json()).toEqual({ result: 'approved' });
      expect((await (await f.call('/v1/checks', { body: refund({ approvalToken: token }), key })).json()).decision).toBe('allow');
      expect((await (await f.call('/v1/checks', { body: refund({ approvalToken: token }), key })).json()).decision).not.toBe('allow');
    }
  });

  it("runs each tenant's batch in its shard: progress, counts and results", async () => {
    for (const key of tenants.values()) {
      const jobs = Array.from({ length: 40 }, (_, i) => ({ policy: 'refunds', input: `refund #${i}`, context: { amount: i % 2 === 0 ? 500 : 5 } }));
      const created = await f.call('/v1/batches', { raw: `${jobs.map((j) => JSON.stringify(j)).join('\n')}\n`, contentType: 'application/x-ndjson', key });
      expect(created.status).toBe(202);
      const { id } = await created.json();
      const status = await waitFor(async () => {
        const read = await (await f.call(`/v1/batches/${id}`, { key })).json();
        return read.state === 'done' ? read : null;
      }, 30_000, 'the batch to finish');
      expect(status).toMatchObject({ total: 40, done: 40, allowed: 20, denied: 20, errors: 0 });
      const results = (await (await f.call(`/v1/batches/${id}/results`, { key })).text()).trim().split('\n');
      expect(results).toHaveLength(40);
    }
  });

  it("exports each tenant's decision log from its shard, and sums every shard in /metrics and readiness", async () => {
    for (const [tenant, key] of tenants) {
      const ids = (await (await f.call('/v1/decision-log?policy=refunds', { key })).text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).id as string);
      expect(ids).toEqual(expect.arrayContaining(decided.get(tenant)!));
      for (const [other, theirs] of decided) if (other !== tenant) for (const id of theirs) expect(ids).not.toContain(id);
    }
    const metrics = await (await f.call('/metrics')).text();
    for (const tenant of tenants.keys()) {
      expect(metrics).toMatch(new RegExp(`guardagent_decisions_total\\{tenant="${tenant}",policy="refunds",decision="deny",status="ok"\\} [1-9]`));
    }
    const ready = await f.call('/readyz', { key: null });
    expect(ready.status).toBe(200);
    // Each stage has a worker per shard (one process here).
    expect((await ready.json()).workers.executor).toBe(SHARDS);
  });

  it('finds the recorded count for a client that does not name one', async () => {
    const [tenant] = [...tenants.keys()];
    const client = await QueueTransport.connect({ redisUrl: f.config.redisUrl!, prefix: f.config.prefix, tenant });
    try {
      expect(client.prefix).toBe(layout.prefixOf(tenant));
      expect((await client.check({ policy: 'refunds', input: 'refund', context: { amount: 101 } })).decision).toBe('deny');
    } finally {
      await client.close();
    }
  });

  it('refuses a gateway, a worker process or a client started with another shard count (CONFIG_INVALID), before it touches a job', async () => {
    const other = loadConfig({}, { redisUrl: testRedisUrl(), prefix: f.config.prefix, shards: 2 });
    await expect(startGateway({ config: other, port: 0, logger: silentLogger })).rejects.toMatchObject({ code: 'CONFIG_INVALID', details: { configured: 2, recorded: SHARDS } });
    await expect(createRuntime(other, { llm: null, logger: silentLogger })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    await expect(QueueTransport.connect({ redisUrl: f.config.redisUrl!, prefix: f.config.prefix, shards: 2 })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    await expect(QueueTransport.connect({ redisUrl: f.config.redisUrl!, prefix: f.config.prefix, shards: 99 })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    expect(await redis.get(keys(f.config.prefix).shardLayout())).toBe(String(SHARDS));
  });
});
