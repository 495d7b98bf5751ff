import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORED_BYTES_FACTOR, STORED_BYTES_PER_CHECK } from '@guardagent/quotas';
import { keys } from '@guardagent/queue';
import { waitFor } from '@guardagent/testing';
import { refundPolicy, startFixture, type GatewayFixture } from './gateway-fixture';

// Each tenant may hold at most `storedBytes` in Redis through its checks: each admitted check
// counts its job's JSON and STORED_BYTES_PER_CHECK until its decision expires. Before, one 76 MB
// batch left 81 MB in Redis whatever the tenant's quotas. Decisions are kept 6 s here, so the
// charges expire within the test.

const QUOTA = 300_000;
const TTL_S = 6;

let f: GatewayFixture;
let key: string;

/** A job whose JSON is about `kb` KB. */
const job = (kb: number, amount = 5) => ({ policy: 'refunds', input: 'x'.repeat(kb * 1000), context: { amount } });
const stored = async () => (await (await f.call('/v1/quotas', { key })).json()).storedBytes as number;

beforeAll(async () => {
  // A batch waits at most 1 s for room here (60 s by default), less than the charges take to expire.
  f = await startFixture({ stages: ['executor'], config: { resultTtlSeconds: TTL_S }, limits: { batchAdmissionWaitMs: 1_000 } });
  key = (await (await f.call('/v1/tenants', { body: { id: 'hoarder' } })).json()).apiKey;
  expect((await f.call('/v1/tenants/hoarder/quotas', { method: 'PUT', body: { storedBytes: QUOTA } })).status).toBe(200);
  expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: refundPolicy(), key })).status).toBe(200);
  expect((await (await f.call('/v1/policies/refunds/compile', { method: 'POST', key })).json()).status).toBe('promoted');
});
afterAll(async () => {
  await f?.close();
});

describe("a tenant's storage quota (storedBytes)", () => {
  it('is configured like the other quotas and shown with what the tenant holds', async () => {
    const view = await (await f.call('/v1/quotas', { key })).json();
    expect(view).toMatchObject({ quotas: { storedBytes: QUOTA }, overrides: { storedBytes: QUOTA }, storedBytes: 0 });
    expect((await (await f.call('/v1/quotas')).json()).quotas.storedBytes).toBe(f.config.quotas.storedBytes);
  });

  it('a check larger than the whole quota: 413 naming the quota, nothing queued', async () => {
    const res = await f.call('/v1/checks', { body: job(400), key });
    expect(res.status).toBe(413);
    expect((await res.json()).error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { quota: 'storedBytes', limit: QUOTA } });
    expect(await stored()).toBe(0);
  });

  it('checks fill it; past it 429 QUOTA_EXCEEDED with Retry-After, for checks and batches alike; room comes back as decisions expire', async () => {
    // Each counts about 60 KB × 1.25 + 1,200 bytes: three fit in 300,000, a fourth does not.
    const decided = [];
    for (let i = 0; i < 3; i++) {
      const res = await f.call('/v1/checks', { body: job(60, i), key });
      expect(res.status, `check ${i}`).toBe(200);
      decided.push(await res.json());
    }
    const held = await stored();
    expect(held).toBeGreaterThanOrEqual(3 * (60_000 * STORED_BYTES_FACTOR + STORED_BYTES_PER_CHECK));
    expect(held).toBeLessThanOrEqual(QUOTA);

    // What is counted is at least what Redis holds for such a check: its decision and its job
    // (every field measured: by default MEMORY USAGE estimates a hash from a sample of its fields).
    const { prefix } = f.config;
    const [decisionBytes, jobBytes] = await Promise.all([
      f.runtime.redis.memory('USAGE', keys(prefix).decision('hoarder', decided[0].id), 'SAMPLES', 0),
      f.runtime.redis.memory('USAGE', `${prefix}:executor:${decided[0].id}`, 'SAMPLES', 0),
    ]);
    expect(Number(decisionBytes) + Number(jobBytes)).toBeLessThanOrEqual(held / 3);

    const refused = await f.call('/v1/checks', { body: job(60), key });
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(TTL_S + 2);
    expect((await refused.json()).error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { quota: 'storedBytes', limit: QUOTA } });

    const batch = await f.call('/v1/batches', { raw: [job(60), job(60)].map((j) => JSON.stringify(j)).join('\n'), contentType: 'application/x-ndjson', key });
    expect(batch.status).toBe(429);
    expect(batch.headers.get('x-batch-queued')).toBe('0');
    expect((await batch.json()).error.details.quota).toBe('storedBytes');
    expect(await stored()).toBe(held);

    // The decisions expire after TTL_S; their bytes stop counting with them (to the second).
    await waitFor(async () => (await stored()) === 0, (TTL_S + 5) * 1000, 'the charges to expire');
    expect((await f.call('/v1/checks', { body: job(60), key })).status).toBe(200);
  });

  it("counts only the tenant's own checks: another tenant is not refused", async () => {
    const other = (await (await f.call('/v1/tenants', { body: { id: 'neighbour' } })).json()).apiKey;
    expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: refundPolicy(), key: other })).status).toBe(200);
    for (let i = 0; i < 6; i++) expect((await f.call('/v1/checks?wait=0', { body: job(60), key: other })).status).toBe(202);
  });
});
