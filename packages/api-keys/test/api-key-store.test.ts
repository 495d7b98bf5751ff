import { ConflictError, NotFoundError } from '@guardagent/errors';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiKeyStore, hashApiKey } from '../src/index';

const redis = new Redis(testRedisUrl());
afterAll(async () => {
  await redis.quit();
});

function store() {
  const prefix = uniquePrefix('keys');
  return { prefix, keys: new ApiKeyStore(redis, prefix) };
}

describe('ApiKeyStore', () => {
  it('issues a key under the same Redis keys as before: the secret only as its hash', async () => {
    const { prefix, keys } = store();
    const issued = await keys.issue('shop', { name: 'agent', scopes: ['check', 'check'] });
    expect(issued).toMatchObject({ name: 'agent', scopes: ['check'] });
    expect(await redis.keys(`${prefix}:*`)).toEqual(expect.arrayContaining([`${prefix}:tenant-keys:${hashApiKey(issued.apiKey)}`, `${prefix}:tenants:shop:keys`]));
    expect(await redis.hget(`${prefix}:tenants:shop:keys`, issued.id)).not.toContain(issued.apiKey);
    expect(await keys.identify(issued.apiKey)).toEqual({ tenant: 'shop', keyId: issued.id, scopes: ['check'] });
    expect(await keys.list('shop')).toEqual([{ id: issued.id, name: 'agent', scopes: ['check'], createdAt: issued.createdAt }]);
  });

  it('rotates: the new secret works, the old one for the overlap only', async () => {
    const { prefix, keys } = store();
    const first = await keys.issue('shop', { scopes: ['admin'] });
    const second = await keys.rotate('shop', first.id, { overlapSeconds: 60 });
    expect(second.id).toBe(first.id);
    expect((await keys.identify(first.apiKey))?.keyId).toBe(first.id);
    expect(await redis.ttl(`${prefix}:tenant-keys:${hashApiKey(first.apiKey)}`)).toBeGreaterThan(0);
    const third = await keys.rotate('shop', first.id);
    expect(await keys.identify(first.apiKey)).toBeNull();
    expect(await keys.identify(second.apiKey)).toBeNull();
    expect((await keys.identify(third.apiKey))?.scopes).toEqual(['admin']);
  });

  it("keeps the tenant's last admin key unless allowed; revoking ends every secret", async () => {
    const { keys } = store();
    const admin = await keys.issue('shop', { scopes: ['admin'] });
    await expect(keys.revoke('shop', admin.id)).rejects.toBeInstanceOf(ConflictError);
    const agent = await keys.issue('shop', { scopes: ['check'] });
    await keys.revoke('shop', agent.id);
    expect(await keys.identify(agent.apiKey)).toBeNull();
    await keys.revoke('shop', admin.id, { allowLastAdmin: true });
    expect(await keys.identify(admin.apiKey)).toBeNull();
    await expect(keys.rotate('shop', admin.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('a legacy key (the bare tenant id) keeps full rights', async () => {
    const { prefix, keys } = store();
    await redis.set(`${prefix}:tenant-keys:${hashApiKey('ga_legacy')}`, 'shop');
    expect(await keys.identify('ga_legacy')).toEqual({ tenant: 'shop', keyId: 'legacy', scopes: ['admin'] });
  });
});
