import { describe, expect, it } from 'vitest';
import { ADMIN_TENANT, KEY_SCOPES, callerOfKey, generateApiKey, hashApiKey, sameKey, type KeyIdentity } from '../src/index';

describe('API key secrets', () => {
  it('are ga_-prefixed, random, and stored as their sha256', () => {
    const a = generateApiKey();
    expect(a).toMatch(/^ga_[A-Za-z0-9_-]{43}$/);
    expect(generateApiKey()).not.toBe(a);
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sameKey(a, a)).toBe(true);
    expect(sameKey(a, `${a}x`)).toBe(false);
  });
});

describe('callerOfKey', () => {
  const identities = new Map<string, KeyIdentity>([['ga_shop', { tenant: 'shop', keyId: 'k-1', scopes: ['check'] }]]);
  const looked: string[] = [];
  const apiKeys = {
    async identify(key: string) {
      looked.push(key);
      return identities.get(key) ?? null;
    },
  };

  it('the server admin key is the admin tenant with every scope', async () => {
    expect(await callerOfKey({ adminKey: 'secret', apiKeys }, 'secret')).toEqual({ tenant: ADMIN_TENANT, serverAdmin: true, scopes: [...KEY_SCOPES], keyId: null });
  });

  it("a tenant's key is its tenant with the key's scopes; an unknown key is null", async () => {
    expect(await callerOfKey({ adminKey: 'secret', apiKeys }, 'ga_shop')).toEqual({ tenant: 'shop', serverAdmin: false, scopes: ['check'], keyId: 'k-1' });
    expect(await callerOfKey({ apiKeys }, 'ga_other')).toBeNull();
  });

  it('does not look up an overlong key', async () => {
    looked.length = 0;
    expect(await callerOfKey({ apiKeys }, 'x'.repeat(513))).toBeNull();
    expect(looked).toEqual([]);
  });
});
