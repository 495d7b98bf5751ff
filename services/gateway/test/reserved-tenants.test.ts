import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueTransport } from '@guardagent/client/queue';
import { RESERVED_TENANT_IDS, keys } from '@guardagent/queue';
import { startGateway } from '../src/index';
import { refundPolicy, startFixture, type GatewayFixture } from './gateway-fixture';
import { silentLogger } from '@guardagent/telemetry';

// In a one-shard deployment tenant data (`<prefix>:<tenant>:…`) and the deployment's records
// (`<prefix>:tenants:…`, `<prefix>:tenant-keys:…`, the queues…) share one prefix. An attacker's
// tenant named `tenants` wrote its policies `keys` and `quotas` over the key records and quotas of
// a tenant named `policy`, which could then neither list nor revoke its keys. Reserved ids are
// refused, so no tenant's keys can reach a deployment record.

let f: GatewayFixture;

beforeAll(async () => {
  f = await startFixture({ stages: [] });
});
afterAll(async () => {
  await f?.close();
});

describe('tenant ids that would share key space with the deployment are refused', () => {
  it('`tenants` cannot be created, so tenant `policy` keeps its keys and quotas', async () => {
    const victim = (await (await f.call('/v1/tenants', { body: { id: 'policy' } })).json()) as { apiKey: string; key: { id: string } };
    expect((await f.call('/v1/tenants/policy/quotas', { method: 'PUT', body: { checksPerSecond: 7 } })).status).toBe(200);

    const attacker = await f.call('/v1/tenants', { body: { id: 'tenants' } });
    expect(attacker.status).toBe(400);
    const { error } = await attacker.json();
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.issues).toEqual([expect.objectContaining({ path: 'id', message: expect.stringContaining('reserved') })]);
    // Nothing of it was written: no tenant record, no key.
    expect(await f.runtime.redis.exists(keys(f.config.prefix).tenant('tenants'))).toBe(0);

    // The victim's records are intact: it lists and revokes its keys, and its quota holds.
    const second = await (await f.call('/v1/keys', { body: { scopes: ['check'] }, key: victim.apiKey })).json();
    const listed = await f.call('/v1/keys', { key: victim.apiKey });
    expect(listed.status).toBe(200);
    expect((await listed.json()).keys.map((k: { id: string }) => k.id).sort()).toEqual([victim.key.id, second.id].sort());
    expect((await f.call(`/v1/keys/${second.id}`, { method: 'DELETE', key: victim.apiKey })).status).toBe(204);
    expect((await (await f.call('/v1/quotas', { key: victim.apiKey })).json()).quotas.checksPerSecond).toBe(7);
    expect((await f.call('/v1/policies/keys', { method: 'PUT', body: refundPolicy('keys'), key: victim.apiKey })).status).toBe(200);
  });

  it('every reserved id is refused (400, naming the field); `default` stays the admin key\'s (409)', async () => {
    expect(RESERVED_TENANT_IDS).toEqual(expect.arrayContaining(['tenants', 'tenant-keys', 'metrics', 'workers', 'layout', 'replies', 'approval', 'rl', 'executor', 'memory', 'planner', 'codegen', 'debugger']));
    for (const id of RESERVED_TENANT_IDS) {
      const res = await f.call('/v1/tenants', { body: { id } });
      expect(res.status, id).toBe(400);
      expect((await res.json()).error.issues[0].path).toBe('id');
    }
    expect((await f.call('/v1/tenants', { body: { id: 'default' } })).status).toBe(409);
    // Names that merely resemble one are ordinary tenants.
    for (const id of ['Tenants', 'tenants2', 'executor-eu', 'metrics.prod']) expect((await f.call('/v1/tenants', { body: { id } })).status, id).toBe(201);
  });

  it('an SDK client cannot work as a reserved tenant either', async () => {
    const refused = await QueueTransport.connect({ redisUrl: f.config.redisUrl!, prefix: f.config.prefix, tenant: 'tenant-keys' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'CONFIG_INVALID', details: { tenant: 'tenant-keys' } });
  });

  it('a tenant created before the reservation is named in a warning when a gateway starts', async () => {
    // As an older gateway would have written it.
    await f.runtime.redis.set(keys(f.config.prefix).tenant('memory'), JSON.stringify({ id: 'memory', createdAt: new Date().toISOString() }));
    const warnings: Array<Record<string, unknown>> = [];
    const gateway = await startGateway({ config: f.config, port: 0, logger: { ...silentLogger, warn: (fields) => void warnings.push(fields) } });
    await gateway.close();
    expect(warnings).toContainEqual({ code: 'RESERVED_TENANT_ID', tenant: 'memory' });
    expect(warnings.filter((w) => w.code === 'RESERVED_TENANT_ID')).toHaveLength(1);
  });
});
