import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { ConflictError, NotFoundError } from '@guardagent/errors';
import { RedisScript, keys, type Keys } from '@guardagent/queue';
import { generateApiKey, hashApiKey } from './api-key';
import { KeyScopeSchema, type KeyScope } from './key-scopes';

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

/**
 * Rotation and revocation each run as one script that first compares the key's record with the one
 * the caller read (ARGV[2]): a record changed in between (another rotation, a revocation) writes
 * nothing and answers `changed`, and the caller reads it again. So whatever runs concurrently, the
 * secrets in Redis are exactly those the final record names: a rotation can neither leave an
 * orphan secret behind nor bring back a key revoked while it ran.
 *
 * ROTATE: KEYS = [records, new secret, current secret, previous secret (or the current again)];
 * ARGV = [key id, record read, new record, new identity, overlap seconds, '1' if a previous secret is to go].
 */
const ROTATE = new RedisScript(
  'rotate-api-key',
  `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return 'gone' end
if current ~= ARGV[2] then return 'changed' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('SET', KEYS[2], ARGV[4])
if ARGV[6] == '1' then redis.call('DEL', KEYS[4]) end
local overlap = tonumber(ARGV[5])
if overlap > 0 then redis.call('EXPIRE', KEYS[3], overlap) else redis.call('DEL', KEYS[3]) end
return 'ok'
`,
);

/**
 * REVOKE: KEYS = [records, current secret, previous secret (or the current again)]; ARGV = [key id,
 * record read, '1' to allow revoking the last admin key, '1' if a previous secret is to go]. The
 * last-admin rule is judged inside the script, over the records as they are then, so two admin keys
 * revoked at once cannot both pass it.
 */
const REVOKE = new RedisScript(
  'revoke-api-key',
  `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return 'gone' end
if current ~= ARGV[2] then return 'changed' end
local function isAdmin(raw)
  local ok, record = pcall(cjson.decode, raw)
  if not ok or type(record) ~= 'table' or type(record.scopes) ~= 'table' then return false end
  for _, scope in ipairs(record.scopes) do
    if scope == 'admin' then return true end
  end
  return false
end
if ARGV[3] ~= '1' and isAdmin(current) then
  local admins = 0
  for _, raw in ipairs(redis.call('HVALS', KEYS[1])) do
    if isAdmin(raw) then admins = admins + 1 end
  end
  if admins <= 1 then return 'last-admin' end
end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
if ARGV[4] == '1' then redis.call('DEL', KEYS[3]) end
return 'ok'
`,
);

/** Reads and compare-and-set tries of one rotation or revocation before it gives up (409). */
const MAX_SWAPS = 64;

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
 * GET; `tenantKeyRecords(tenant)` (a hash by key id) lists them. Issuing writes both in one MULTI;
 * rotating and revoking are one script each (see ROTATE, REVOKE).
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
   * `overlapSeconds` so agents can be redeployed without a gap (a secret an earlier rotation left
   * overlapping stops at once). Concurrent rotations are applied one after another: each caller
   * gets its secret, and the last one applied is the key's.
   */
  async rotate(tenant: string, keyId: string, options: { overlapSeconds?: number } = {}): Promise<IssuedKey> {
    const overlap = options.overlapSeconds ?? 0;
    for (let attempt = 0; attempt < MAX_SWAPS; attempt++) {
      const { raw, record } = await this.record(tenant, keyId);
      const apiKey = generateApiKey();
      const next: KeyRecord = { ...record, keyHash: hashApiKey(apiKey), rotatedAt: new Date().toISOString() };
      if (overlap > 0) next.previousKeyHash = record.keyHash;
      else delete next.previousKeyHash;
      const current = this.keys.tenantByKeyHash(record.keyHash);
      const outcome = await ROTATE.run(
        this.redis,
        [this.keys.tenantKeyRecords(tenant), this.keys.tenantByKeyHash(next.keyHash), current, record.previousKeyHash ? this.keys.tenantByKeyHash(record.previousKeyHash) : current],
        [keyId, raw, JSON.stringify(next), JSON.stringify({ tenant, keyId, scopes: next.scopes }), overlap, record.previousKeyHash ? '1' : '0'],
      );
      if (outcome === 'ok') return { ...view(next), apiKey };
      if (outcome === 'gone') throw new NotFoundError('API key', keyId);
    }
    throw new ConflictError('the key kept changing while it was rotated; try again', { id: keyId });
  }

  /**
   * Revokes a key at once, with every secret it has. The tenant's last `admin` key cannot be
   * revoked (the tenant would be locked out of its own keys); the server's admin key can still
   * issue one.
   */
  async revoke(tenant: string, keyId: string, options: { allowLastAdmin?: boolean } = {}): Promise<void> {
    for (let attempt = 0; attempt < MAX_SWAPS; attempt++) {
      const { raw, record } = await this.record(tenant, keyId);
      const current = this.keys.tenantByKeyHash(record.keyHash);
      const outcome = await REVOKE.run(
        this.redis,
        [this.keys.tenantKeyRecords(tenant), current, record.previousKeyHash ? this.keys.tenantByKeyHash(record.previousKeyHash) : current],
        [keyId, raw, options.allowLastAdmin ? '1' : '0', record.previousKeyHash ? '1' : '0'],
      );
      if (outcome === 'ok') return;
      if (outcome === 'gone') throw new NotFoundError('API key', keyId);
      if (outcome === 'last-admin') throw new ConflictError("this is the tenant's last admin key; issue another admin key first", { id: keyId });
    }
    throw new ConflictError('the key kept changing while it was revoked; try again', { id: keyId });
  }

  /** The key's record as stored (the exact text, which the scripts compare) and parsed. */
  private async record(tenant: string, keyId: string): Promise<{ raw: string; record: KeyRecord }> {
    const raw = await this.redis.hget(this.keys.tenantKeyRecords(tenant), keyId);
    if (raw === null) throw new NotFoundError('API key', keyId);
    return { raw, record: KeyRecordSchema.parse(JSON.parse(raw)) };
  }
}
