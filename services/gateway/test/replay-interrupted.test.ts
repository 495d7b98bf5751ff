import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { waitFor } from '@guardagent/testing';
import { ReplayStore } from '../src/replay-store';
import { refundPolicy, startFixture } from './gateway-fixture';

it('a gateway that closes mid-replay marks the replay interrupted (REPLAY_INTERRUPTED), with its progress so far', async () => {
  const f = await startFixture({ stages: ['executor', 'memory'] });
  const redis = new Redis(f.config.redisUrl!);
  let runtimeClosed = false;
  try {
    expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: { ...refundPolicy(), decisionLog: true } })).status).toBe(200);
    expect((await (await f.call('/v1/policies/refunds/compile', { method: 'POST' })).json()).status).toBe('promoted');
    for (const amount of [500, 50, 5]) expect((await f.call('/v1/checks', { body: { policy: 'refunds', input: 'refund', context: { amount } } })).status).toBe(200);
    // No executor from here on: the replay's checks are queued and never decided.
    await f.runtime.close();
    runtimeClosed = true;

    const started = await f.call('/v1/policies/refunds/replays', { body: { version: 'current' } });
    expect(started.status).toBe(202);
    const { id } = await started.json();
    await waitFor(async () => (await (await f.call(`/v1/replays/${id}`)).json()).progress.submitted === 3, 10_000, 'the replay to queue its checks');
    await f.gateway.close();

    const record = await new ReplayStore(redis, f.config.prefix).get('default', id);
    expect(record).toMatchObject({ state: 'interrupted', progress: { read: 3, submitted: 3, decided: 0 }, diff: null, error: { code: 'REPLAY_INTERRUPTED' } });
    expect(record?.error?.message).toMatch(/the gateway running it closed/);
    expect(record?.finishedAt).not.toBeNull();
  } finally {
    redis.disconnect();
    await f.gateway.close();
    if (!runtimeClosed) await f.runtime.close();
  }
});
