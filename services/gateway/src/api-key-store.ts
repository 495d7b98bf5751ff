import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { NotFoundError } from '@guardagent/errors';
import { keys, type Keys } from '@guardagent/queue';
import { generateApiKey, hashApiKey } from './api-key';
import { ConflictError } from './gateway-errors';
import { KeyScopeSchema, scopeGrants, type KeyScope } from './key-scopes';

/** What the gateway learns from a presented key: whose it is and what it may do. */
export interface KeyIdentity {
  tenant: string;
  keyId: string;
  scopes: KeyScope[];
}

/** A key as listed: never its secret, never its hash. */
export interface KeyView {
  id: string;
  name?: string;
  scopes: KeyScope[];
  createdAt: string;
  rotatedAt?: string;
}

export interface IssuedKey extends KeyView {
  /** Shown once, in the answer that creates or rotates the key. */
  apiKey: string;
}

const KeyRecordSchema = z.object({
  id: z.string(),
  name: z.string().optional(),
  scopes: z.array(KeyScopeSchema).min(1),
  createdAt: z.string(),
  rotatedAt: z.string().optional(),
  keyHash: z.string(),
  /** The hash of the secret a rotation replaced, while its overlap lasts (so revoking ends it too). */
  previousKeyHash: z.string().optional(),
});
type KeyRecord = z.infer<typeof KeyRecordSchema>;

const IdentitySchema = z.object({ tenant: z.string(), keyId: z.string(), scopes: z.array(KeyScopeSchema).min(1) });

/** Keys made before scopes existed stored only the tenant id; they keep the full rights they had. */
const LEGACY_KEY_ID = 'legacy';

function view(record: KeyRecord): KeyView {
  return {
    id: record.id,
    ...(record.name ? { name: record.name } : {}),
    scopes: record.scopes,
    createdAt: record.createdAt,
    ...(record.rotatedAt ? { rotatedAt: record.rotatedAt } : {}),
  };
}

/**
 * A tenant's API keys in Redis. Each key has an id (to list, rotate and revoke it by) and scopes.
 * Only the sha256 of a secret is kept: `tenantByKeyHash(hash)` answers an authentication in one
 * GET; `tenantKeyRecords(tenant)` (a hash by key id) lists them. Both are written in one MULTI.
 */
export class ApiKeyStore {
  private readonly keys: Keys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = keys(prefix);
  }

  async issue(tenant: string, input: { name?: string | undefined; scopes: readonly KeyScope[] }): Promise<IssuedKey> {
    const apiKey = generateApiKey();
    const record: KeyRecord = {
      id: `k-${randomBytes(6).toString('hex')}`,
      ...(input.name ? { name: input.name } : {}),
      scopes: [...new Set(input.scopes)],
      createdAt: new Date().toISOString(),
      keyHash: hashApiKey(apiKey),
    };
    await this.redis
      .multi()
      .hset(this.keys.tenantKeyRecords(tenant), record.id, JSON.stringify(record))
      .set(this.keys.tenantByKeyHash(record.keyHash), JSON.stringify({ tenant, keyId: record.id, scopes: record.scopes }))
      .exec();
    return { ...view(record), apiKey };
  }

  /** Who a presented key belongs to, or null (unknown, revoked, or rotated past its overlap). */
  async identify(apiKey: string): Promise<KeyIdentity | null> {
    const stored = await this.redis.get(this.keys.tenantByKeyHash(hashApiKey(apiKey)));
    if (stored === null) return null;
    if (!stored.startsWith('{')) return { tenant: stored, keyId: LEGACY_KEY_ID, scopes: ['admin'] };
    const parsed = IdentitySchema.safeParse(JSON.parse(stored));
    return parsed.success ? parsed.data : null;
  }

  async list(tenant: string): Promise<KeyView[]> {
    const all = await this.redis.hvals(this.keys.tenantKeyRecords(tenant));
    return all
      .map((raw) => KeyRecordSchema.parse(JSON.parse(raw)))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
      .map(view);
  }

  /**
   * A new secret for the same key id and scopes. The old secret stops working at once, or after
   * `overlapSeconds` so agents can be redeployed without a gap.
   */
  async rotate(tenant: string, keyId: string, options: { overlapSeconds?: number } = {}): Promise<IssuedKey> {
    const record = await this.record(tenant, keyId);
    const apiKey = generateApiKey();
    const next: KeyRecord = { ...record, keyHash: hashApiKey(apiKey), rotatedAt: new Date().toISOString() };
    const overlap = options.overlapSeconds ?? 0;
    if (overlap > 0) next.previousKeyHash = record.keyHash;
    else delete next.previousKeyHash;
    const multi = this.redis
      .multi()
      .hset(this.keys.tenantKeyRecords(tenant), keyId, JSON.stringify(next))
      .set(this.keys.tenantByKeyHash(next.keyHash), JSON.stringify({ tenant, keyId, scopes: next.scopes }));
    if (record.previousKeyHash) multi.del(this.keys.tenantByKeyHash(record.previousKeyHash));
    if (overlap > 0) multi.expire(this.keys.tenantByKeyHash(record.keyHash), overlap);
    else multi.del(this.keys.tenantByKeyHash(record.keyHash));
    await multi.exec();
    return { ...view(next), apiKey };
  }

  /**
   * Revokes a key at once. The tenant's last `admin` key cannot be revoked (the tenant would be
   * locked out of its own keys); the server's admin key can still issue one.
   */
  async revoke(tenant: string, keyId: string, options: { allowLastAdmin?: boolean } = {}): Promise<void> {
    const record = await this.record(tenant, keyId);
    if (!options.allowLastAdmin && scopeGrants(record.scopes, 'admin')) {
      const admins = (await this.list(tenant)).filter((key) => scopeGrants(key.scopes, 'admin'));
      if (admins.length <= 1) throw new ConflictError('this is the tenant\'s last admin key; issue another admin key first', { id: keyId });
    }
    const multi = this.redis.multi().hdel(this.keys.tenantKeyRecords(tenant), keyId).del(this.keys.tenantByKeyHash(record.keyHash));
    if (record.previousKeyHash) multi.del(this.keys.tenantByKeyHash(record.previousKeyHash));
    await multi.exec();
  }

  private async record(tenant: string, keyId: string): Promise<KeyRecord> {
    const raw = await this.redis.hget(this.keys.tenantKeyRecords(tenant), keyId);
    if (raw === null) throw new NotFoundError('API key', keyId);
    return KeyRecordSchema.parse(JSON.parse(raw));
  }
}
