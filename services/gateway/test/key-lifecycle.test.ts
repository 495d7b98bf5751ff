import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '@guardagent/api-keys';
import { refundPolicy, startFixture, type GatewayFixture } from './gateway-fixture';

// Rotation and revocation are each one step in Redis (a Lua script that compares the key's record
// with the one read and writes only if it is unchanged). Fired concurrently many times, exactly the
// secrets the final record names work: no rotation leaves an orphan secret behind, no revoked key
// comes back, and the last admin key is kept whatever races it.

let f: GatewayFixture;
let ownerKey: string;

const TRIES = 15;
const issue = async (scopes: string[], name = 'k') => (await f.call('/v1/keys', { body: { name, scopes }, key: ownerKey })).json();
const rotate = (id: string, body: unknown = {}) => f.call(`/v1/keys/${id}/rotate`, { body, key: ownerKey });
const revoke = (id: string, key = ownerKey) => f.call(`/v1/keys/${id}`, { method: 'DELETE', key });

/** Whether a secret authenticates (a route every scope may call). */
async function works(secret: string): Promise<boolean> {
  const res = await f.call('/v1/quotas', { key: secret });
  expect([200, 401]).toContain(res.status);
  return res.status === 200;
}

/** Every `tenant-keys:<hash>` entry in Redis that authenticates as this key id (orphans included). */
async function secretsInRedisFor(keyId: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await f.runtime.redis.scan(cursor, 'MATCH', `${f.config.prefix}:tenant-keys:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of batch) {
      const value = await f.runtime.redis.get(key);
      if (value?.startsWith('{') && JSON.parse(value).keyId === keyId) found.push(key);
    }
  } while (cursor !== '0');
  return found;
}

beforeAll(async () => {
  f = await startFixture({ stages: [] });
  ownerKey = (await (await f.call('/v1/tenants', { body: { id: 'lifecycle' } })).json()).apiKey;
  expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: refundPolicy(), key: ownerKey })).status).toBe(200);
});
afterAll(async () => {
  await f?.close();
});

describe('key rotation and revocation are atomic', () => {
  it('concurrent rotations of one key: every one succeeds in turn, and only the last secret works', async () => {
    for (let trial = 0; trial < TRIES; trial++) {
      const made = await issue(['check'], `agent ${trial}`);
      const answers = await Promise.all(Array.from({ length: 4 }, () => rotate(made.id)));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      const secrets = await Promise.all(answers.map(async (a) => (await a.json()).apiKey as string));
      const working = [];
      for (const secret of [made.apiKey, ...secrets]) if (await works(secret)) working.push(secret);
      expect(working, `trial ${trial}: exactly one secret works`).toHaveLength(1);
      expect(await secretsInRedisFor(made.id), `trial ${trial}: no orphan secret in Redis`).toEqual([`${f.config.prefix}:tenant-keys:${hashApiKey(working[0])}`]);
      expect((await revoke(made.id)).status).toBe(204);
      for (const secret of [made.apiKey, ...secrets]) expect(await works(secret), `trial ${trial}: revoked`).toBe(false);
      expect(await secretsInRedisFor(made.id)).toEqual([]);
    }
  });

  it('concurrent rotations with an overlap: the current and the one before it work, nothing else', async () => {
    for (let trial = 0; trial < TRIES; trial++) {
      const made = await issue(['check'], `overlap ${trial}`);
      const answers = await Promise.all(Array.from({ length: 3 }, () => rotate(made.id, { overlapSeconds: 600 })));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      const secrets = await Promise.all(answers.map(async (a) => (await a.json()).apiKey as string));
      const working = [];
      for (const secret of [made.apiKey, ...secrets]) if (await works(secret)) working.push(secret);
      expect(working, `trial ${trial}`).toHaveLength(2);
      expect(await secretsInRedisFor(made.id)).toHaveLength(2);
      expect((await revoke(made.id)).status).toBe(204);
      for (const secret of [made.apiKey, ...secrets]) expect(await works(secret), `trial ${trial}: revoked`).toBe(false);
      expect(await secretsInRedisFor(made.id)).toEqual([]);
    }
  });

  it('a rotation racing a revocation never brings the revoked key back', async () => {
    const outcomes = new Set<string>();
    for (let trial = 0; trial < TRIES; trial++) {
      const made = await issue(['check'], `raced ${trial}`);
      // Alternate which request leaves first, and rotations with and without an overlap.
      const rotation = () => rotate(made.id, { overlapSeconds: trial % 4 < 2 ? 600 : 0 });
      const [rotated, revoked] =
        trial % 2 === 0 ? await Promise.all([rotation(), revoke(made.id)]) : (await Promise.all([revoke(made.id), rotation()])).reverse();
      expect(revoked.status).toBe(204);
      expect([200, 404]).toContain(rotated.status);
      outcomes.add(String(rotated.status));
      const secret = rotated.status === 200 ? ((await rotated.json()).apiKey as string) : null;
      expect(await works(made.apiKey), `trial ${trial}: the old secret`).toBe(false);
      if (secret) expect(await works(secret), `trial ${trial}: the rotated secret`).toBe(false);
      expect(await secretsInRedisFor(made.id), `trial ${trial}`).toEqual([]);
      const listed = (await (await f.call('/v1/keys', { key: ownerKey })).json()).keys.map((k: { id: string }) => k.id);
      expect(listed, `trial ${trial}: the key is not listed again`).not.toContain(made.id);
    }
    // Which of the two won is the scheduler's choice; either way nothing came back (above).
    expect(outcomes.size).toBeGreaterThan(0);
  });

  it('two admin keys revoked at the same moment: one goes, the last one stays (409)', async () => {
    for (let trial = 0; trial < 5; trial++) {
      const tenant = (await (await f.call('/v1/tenants', { body: { id: `admins-${trial}` } })).json()) as { apiKey: string; key: { id: string } };
      const second = await (await f.call('/v1/keys', { body: { scopes: ['admin'] }, key: tenant.apiKey })).json();
      const [a, b] = await Promise.all([revoke(tenant.key.id, second.apiKey), revoke(second.id, tenant.apiKey)]);
      expect([a.status, b.status].sort()).toEqual([204, 409]);
      const survivors = [tenant.apiKey, second.apiKey];
      const alive = [];
      for (const secret of survivors) if (await works(secret)) alive.push(secret);
      expect(alive, `trial ${trial}: one admin key is left`).toHaveLength(1);
      expect((await f.call('/v1/keys', { key: alive[0] })).status).toBe(200);
    }
  });
});
