import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refundPolicy, startFixture, strictRefundShadow, type GatewayFixture } from './gateway-fixture';

let f: GatewayFixture;

beforeAll(async () => {
  f = await startFixture({ stages: ['executor', 'memory'] });
  expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: refundPolicy() })).status).toBe(200);
  expect((await (await f.call('/v1/policies/refunds/compile', { method: 'POST' })).json()).status).toBe('promoted');
});
afterAll(async () => {
  await f?.close();
});

describe('a shadow version over HTTP', () => {
  it('is put beside the enforcing version, compiled with ?shadow=true, decides beside it, and is counted in /metrics', async () => {
    // The shadow denies refunds over 10 (the enforcing version: over 100).
    expect((await (await f.call('/v1/policies/refunds')).json()).shadow).toBeNull();
    const strict = strictRefundShadow();
    expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: strict })).status).toBe(200);
    expect((await f.call('/v1/policies/nothing/compile?shadow=true', { method: 'POST' })).status).toBe(404);
    const compiled = await (await f.call('/v1/policies/refunds/compile?shadow=true', { method: 'POST' })).json();
    expect(compiled).toMatchObject({ status: 'promoted', policy: { version: '2' } });
    // The enforcing version is still current; the view names the shadow beside it.
    const view = await (await f.call('/v1/policies/refunds')).json();
    expect(view.policy.version).toBe('1');
    expect(view.shadow).toMatchObject({ version: '2', digest: compiled.policy.digest, programPromoted: true });

    const decision = await (await f.call('/v1/checks', { body: { policy: 'refunds', input: 'refund', context: { amount: 50 } } })).json();
    expect(decision).toMatchObject({ decision: 'allow', policy: { version: '1' }, shadow: { decision: 'deny', agrees: false, policy: { version: '2' } } });
    const metrics = await (await f.call('/metrics')).text();
    expect(metrics).toMatch(/guardagent_shadow_decisions_total\{tenant="default",policy="refunds",outcome="disagree"\} 1/);
  });
});
