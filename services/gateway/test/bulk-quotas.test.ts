import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayCheckId } from '@guardagent/replay';
import { waitFor } from '@guardagent/testing';
import { refundPolicy, startFixture, type GatewayFixture } from './gateway-fixture';

// A tenant limited to 2 checks/s (burst 2). Its direct checks were held to that rate, but a replay
// of its decision log was not admitted at all (an attacker's replay decided 450 checks in under
// 10 s). Replays and batches are bulk work: admitted against the same token bucket, waiting for
// room, and leaving half of the burst to the tenant's live checks.

const RATE = 2;
const BURST = 2;
const LOGGED = 14;

let f: GatewayFixture;
let key: string;

/**
 * Token-bucket bound: in any span of `t` seconds at most BURST + RATE * t checks are admitted. The
 * decisions' times stand in for the admissions (each is decided a few ms after it is admitted, so
 * a quarter second of slack on each span).
 */
function expectWithinRate(times: number[], what: string): void {
  const sorted = [...times].sort((a, b) => a - b);
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i; j < sorted.length; j++) {
      const span = (sorted[j] - sorted[i]) / 1000 + 0.25;
      expect(j - i + 1, `${what}: ${j - i + 1} checks within ${span.toFixed(2)} s`).toBeLessThanOrEqual(BURST + RATE * span);
    }
  }
}

const check = (amount: number) => f.call('/v1/checks?wait=5000', { body: { policy: 'refunds', input: 'refund', context: { amount } }, key });

beforeAll(async () => {
  // A short body deadline: a batch that waits seconds for its quota must not be cut off by it.
  f = await startFixture({ stages: ['executor'], limits: { bodyTimeoutMs: 2_000 } });
  key = (await (await f.call('/v1/tenants', { body: { id: 'slow-bulk' } })).json()).apiKey;
  expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: { ...refundPolicy(), decisionLog: true }, key })).status).toBe(200);
  expect((await (await f.call('/v1/policies/refunds/compile', { method: 'POST', key })).json()).status).toBe('promoted');
  // Record the traffic under the default quotas, then limit the tenant.
  for (let i = 0; i < LOGGED; i++) expect((await check(i * 20)).status).toBe(200);
  expect((await f.call('/v1/tenants/slow-bulk/quotas', { method: 'PUT', body: { checksPerSecond: RATE, checkBurst: BURST } })).status).toBe(200);
});
afterAll(async () => {
  await f?.close();
});

describe('bulk work runs under the tenant\'s check rate', () => {
  it('direct checks: past the burst they are refused with 429', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => check(i)));
    const admitted = answers.filter((a) => a.status === 200).length;
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(20 - BURST - 1);
    expect(admitted).toBeLessThanOrEqual(BURST + 1);
  });

  it('a replay of the logged checks waits for room: never faster than the rate, and live checks still get through', async () => {
    // Let the bucket fill again after the burst above.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    // What the replay will read: the checks recorded above (and the direct ones admitted just now).
    const entries = (await (await f.call('/v1/decision-log?policy=refunds', { key })).text())
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: string });
    const logged = entries.length;
    expect(logged).toBeGreaterThanOrEqual(LOGGED);
    const started = await f.call('/v1/policies/refunds/replays', { body: { version: 'current' }, key });
    expect(started.status).toBe(202);
    const { id } = await started.json();
    // Live checks while it runs, one a second (the rate's worth): bulk work leaves them room.
    const live: number[] = [];
    const running = async () => (await (await f.call(`/v1/replays/${id}`, { key })).json()).state === 'running';
    while (live.length < 4 && (await running())) {
      live.push((await check(1)).status);
      await new Promise((resolve) => setTimeout(resolve, 1_050));
    }
    const done = await waitFor(
      async () => {
        const record = await (await f.call(`/v1/replays/${id}`, { key })).json();
        return record.state === 'running' ? null : record;
      },
      60_000,
      'the replay',
    );
    expect(done.state).toBe('done');
    expect(done.progress).toMatchObject({ read: logged, submitted: logged, decided: logged });
    expect(live.length).toBeGreaterThanOrEqual(3);
    expect(live.every((status) => status === 200), `live checks during the replay: ${live}`).toBe(true);
    // `logged` checks from a bucket of BURST refilled at RATE take at least (logged - BURST) / RATE s.
    const tookMs = Date.parse(done.finishedAt) - Date.parse(done.createdAt);
    expect(tookMs).toBeGreaterThanOrEqual(((logged - BURST) / RATE) * 1000);
    const replayed = await Promise.all(entries.map(async (entry) => (await f.call(`/v1/checks/${replayCheckId('slow-bulk', id, entry.id)}`, { key })).json()));
    expect(replayed.every((decision) => typeof decision.createdAt === 'string')).toBe(true);
    expectWithinRate(replayed.map((decision) => Date.parse(decision.createdAt)), 'replayed checks');
  });

  it('a batch waits for room the same way, and is not cut off by the body deadline while it waits', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const jobs = Array.from({ length: 12 }, (_, i) => JSON.stringify({ policy: 'refunds', input: `refund ${i}`, context: { amount: i * 30 } })).join('\n');
    const startedAt = performance.now();
    const res = await f.call('/v1/batches', { raw: jobs, contentType: 'application/x-ndjson', key });
    const tookMs = performance.now() - startedAt;
    expect(res.status).toBe(202);
    const { id, total } = await res.json();
    expect(total).toBe(12);
    // Every check is admitted before the answer: 12 from a bucket of 2 at 2/s take 5 s at least.
    expect(tookMs).toBeGreaterThanOrEqual(((12 - BURST) / RATE) * 1000);
    const decisions = await waitFor(
      async () => {
        const status = await (await f.call(`/v1/batches/${id}`, { key })).json();
        if (status.state !== 'done') return null;
        return (await (await f.call(`/v1/batches/${id}/results`, { key })).text()).split('\n').filter(Boolean).map((line) => JSON.parse(line) as { createdAt: string });
      },
      30_000,
      'the batch',
    );
    expect(decisions).toHaveLength(12);
    expectWithinRate(decisions.map((decision) => Date.parse(decision.createdAt)), 'batch checks');
  });
});
