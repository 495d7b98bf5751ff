import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '@guardagent/queue';
import { startFixture, refundPolicy, strictRefundShadow, type GatewayFixture } from './gateway-fixture';

let f: GatewayFixture;

beforeAll(async () => {
  f = await startFixture({ stages: [] });
});
afterAll(async () => {
  await f?.close();
});

describe('policy versions', () => {
  it('lists every version put under an id, newest first, marking the current one and the shadow', async () => {
    const v1 = await (await f.call('/v1/policies/refunds', { method: 'PUT', body: refundPolicy() })).json();
    const v2 = await (await f.call('/v1/policies/refunds', { method: 'PUT', body: { ...refundPolicy(), version: '2', description: 'second' } })).json();
    // The same version again (a retried deploy) is no new entry.
    expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: { ...refundPolicy(), version: '2', description: 'second' } })).status).toBe(200);
    const shadow = await (await f.call('/v1/policies/refunds', { method: 'PUT', body: { ...strictRefundShadow(), version: '3' } })).json();
    // The shadow put again (as compile?shadow=true does) is no new entry either.
    expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: { ...strictRefundShadow(), version: '3' } })).status).toBe(200);

    const listed = await f.call('/v1/policies/refunds/versions');
    expect(listed.status).toBe(200);
    const { versions } = await listed.json();
    expect(versions.map((v: { version: string }) => v.version)).toEqual(['3', '2', '1']);
    expect(versions[0]).toMatchObject({ digest: shadow.digest, enforcement: 'shadow', shadow: true, current: false });
    expect(versions[1]).toMatchObject({ digest: v2.digest, enforcement: 'enforce', current: true, shadow: false });
    expect(versions[2]).toMatchObject({ digest: v1.digest, current: false });
    for (const v of versions) expect(Date.parse(v.putAt)).not.toBeNaN();

    // One version by digest or by a prefix of it: the policy as stored.
    const old = await (await f.call(`/v1/policies/refunds/versions/${v1.digest.slice(0, 10)}`)).json();
    expect(old).toMatchObject({ digest: v1.digest, policy: { id: 'refunds', version: '1' } });
    expect(old.policy.description).toBeUndefined();
    // Never compiled: no program (a compiled version's code: console-browser.test.ts).
    expect(old.program).toBeNull();
    expect((await f.call(`/v1/policies/refunds/versions/${'0'.repeat(64)}`)).status).toBe(404);
    expect((await f.call('/v1/policies/refunds/versions/xyz')).status).toBe(400);
    expect((await f.call('/v1/policies/nope/versions')).status).toBe(404);
  });

  it("a version stored before versions were recorded is still listed; another tenant's versions answer 404; delete ends the history", async () => {
    await f.call('/v1/policies/legacy', { method: 'PUT', body: refundPolicy('legacy') });
    await f.runtime.redis.del(keys(f.config.prefix).policyVersions('default', 'legacy'));
    const { versions } = await (await f.call('/v1/policies/legacy/versions')).json();
    expect(versions).toEqual([expect.objectContaining({ version: '1', current: true, putAt: null })]);

    const tenant = await (await f.call('/v1/tenants', { body: { id: 'versions-other' } })).json();
    expect((await f.call('/v1/policies/legacy/versions', { key: tenant.apiKey })).status).toBe(404);
    expect((await f.call(`/v1/policies/legacy/versions/${versions[0].digest}`, { key: tenant.apiKey })).status).toBe(404);

    expect((await f.call('/v1/policies/legacy', { method: 'DELETE' })).status).toBe(204);
    expect((await f.call('/v1/policies/legacy/versions')).status).toBe(404);
  });
});

describe('GET /v1/tenants', () => {
  it('lists tenants oldest first with the total, a page at a time, including ones made before the index; admin key only', async () => {
    const ids = ['list-a', 'list-b', 'list-c'];
    for (const id of ids) expect((await f.call('/v1/tenants', { body: { id, name: `Tenant ${id}` } })).status).toBe(201);
    // A tenant created before the index existed: its record only.
    const k = keys(f.config.prefix);
    await f.runtime.redis.set(k.tenant('list-legacy'), JSON.stringify({ id: 'list-legacy', createdAt: '2020-01-01T00:00:00.000Z' }));
    await f.runtime.redis.del(k.tenantIndexBuilt());

    const all = await (await f.call('/v1/tenants?limit=1000')).json();
    const listed = all.tenants.map((t: { id: string }) => t.id);
    expect(listed[0]).toBe('list-legacy');
    expect(listed.filter((id: string) => ids.includes(id))).toEqual(ids);
    expect(all.total).toBe(all.tenants.length);
    expect(all.tenants.find((t: { id: string }) => t.id === 'list-b')).toEqual({ id: 'list-b', name: 'Tenant list-b', createdAt: expect.any(String) });

    const page = await (await f.call('/v1/tenants?limit=1&offset=1')).json();
    expect(page.tenants).toHaveLength(1);
    expect(page.tenants[0].id).toBe(listed[1]);
    expect(page.total).toBe(all.total);

    const tenantKey = (await (await f.call('/v1/tenants', { body: { id: 'list-d' } })).json()).apiKey;
    expect((await f.call('/v1/tenants', { key: tenantKey })).status).toBe(403);
  });
});
