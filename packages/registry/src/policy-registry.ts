import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { NotFoundError, ValidationError } from '@guardagent/errors';
import { PolicySchema, type Policy } from '@guardagent/schemas';
import { assertPolicyValid } from '@guardagent/rails';
import { keys, type Keys } from '@guardagent/queue';
import { policyDigest, programDigest } from './policy-digest';

export interface RegisteredPolicy {
  policy: Policy;
  digest: string;
  programDigest: string;
}

/** One version put under a policy id (see PolicyRegistry.versions). */
export interface PolicyVersionEntry {
  digest: string;
  version: string;
  enforcement: 'enforce' | 'shadow';
  /** When it was put (ISO); null for a version stored before versions were recorded. */
  putAt: string | null;
  /** Whether it is the id's current (enforcing) version, or its shadow, now. */
  current: boolean;
  shadow: boolean;
}

/** Versions kept in a policy id's history (their snapshots persist; only the list is capped). */
export const MAX_POLICY_VERSIONS = 100;

/**
 * A snapshot only sent inline with checks (never stored with PUT) expires this long after it was
 * last used: clients invent digests with every inline policy, and Redis must not keep them all.
 */
export const INLINE_SNAPSHOT_TTL_SECONDS = 7 * 86_400;
/** In-process snapshot cache: at most this many policies, and this many characters of policy JSON. */
const SNAPSHOT_CACHE_ENTRIES = 10_000;
const SNAPSHOT_CACHE_CHARS = 64 * 1024 * 1024;

interface CachedSnapshot {
  registered: RegisteredPolicy;
  chars: number;
  /** When this process last refreshed the snapshot's TTL in Redis (0: never; it was read, not stored). */
  touchedAt: number;
}

/**
 * Policies per tenant, as code: each version is stored immutably by digest, and a policy id
 * points at its current digest. Snapshots are cached in process (bounded by count and size);
 * stored versions persist in Redis, inline ones expire when unused.
 */
export class PolicyRegistry {
  private readonly keys: Keys;
  private readonly snapshots = new LRUCache<string, CachedSnapshot>({
    max: SNAPSHOT_CACHE_ENTRIES,
    maxSize: SNAPSHOT_CACHE_CHARS,
    sizeCalculation: (entry) => Math.max(1, entry.chars),
  });
  private readonly digestOfObject = new WeakMap<Policy, RegisteredPolicy>();

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    this.keys = keys(prefix);
  }

  /** Describe a policy (digests) without storing it. Cached per policy object. */
  describe(policy: Policy): RegisteredPolicy {
    const cached = this.digestOfObject.get(policy);
    if (cached) return cached;
    const registered = { policy, digest: policyDigest(policy), programDigest: programDigest(policy) };
    this.digestOfObject.set(policy, registered);
    return registered;
  }

  /**
   * Store an inline policy's snapshot (idempotent) without changing which version the id points
   * at. It expires INLINE_SNAPSHOT_TTL_SECONDS after its last use; each use refreshes that (at most
   * every quarter of it per process). A snapshot stored with put() is not given a TTL.
   */
  async storeSnapshot(tenant: string, policy: Policy): Promise<RegisteredPolicy> {
    const registered = this.describe(policy);
    const cacheKey = `${tenant}:${registered.digest}`;
    const cached = this.snapshots.get(cacheKey);
    const now = this.now();
    if (cached && now - cached.touchedAt < (INLINE_SNAPSHOT_TTL_SECONDS * 1000) / 4) return registered;
    // Checked once per digest and process (a cached snapshot passed): a policy whose rails could
    // not run is refused here, not denied with guard_error at every check.
    if (!cached) assertPolicyValid(policy);
    const key = this.keys.policySnapshot(tenant, registered.digest);
    const json = JSON.stringify(policy);
    const created = await this.redis.set(key, json, 'EX', INLINE_SNAPSHOT_TTL_SECONDS, 'NX');
    // Already there: refresh an inline snapshot's TTL; GT leaves a persistent (stored) one alone.
    if (created !== 'OK') await this.redis.expire(key, INLINE_SNAPSHOT_TTL_SECONDS, 'GT');
    this.snapshots.set(cacheKey, { registered, chars: json.length, touchedAt: now });
    return registered;
  }

  /**
   * Register a policy version (kept without expiry) and make it the current one for its id. Its
   * rails are compiled first: a condition, schema, pattern or reference that could not run is a
   * ValidationError naming each (nothing is stored).
   */
  async put(tenant: string, policy: Policy): Promise<RegisteredPolicy> {
    assertPolicyValid(policy);
    const registered = this.describe(policy);
    const json = JSON.stringify(policy);
    const shadow = policy.enforcement === 'shadow';
    // A shadow decides beside an enforcing version: without one there is nothing to compare with.
    if (shadow && !(await this.redis.exists(this.keys.policyCurrent(tenant, policy.id)))) {
      throw new ValidationError('policy', [{ path: 'enforcement', message: `a shadow version needs an enforcing version of '${policy.id}' to decide beside; put that first` }]);
    }
    this.snapshots.set(`${tenant}:${registered.digest}`, { registered, chars: json.length, touchedAt: this.now() });
    const enforcement = shadow ? 'shadow' : 'enforce';
    const versionsKey = this.keys.policyVersions(tenant, policy.id);
    const inForce = await this.redis.get(shadow ? this.keys.policyShadow(tenant, policy.id) : this.keys.policyCurrent(tenant, policy.id));
    const write = this.redis
      .multi()
      // A plain SET also clears the TTL of an inline snapshot of the same digest.
      .set(this.keys.policySnapshot(tenant, registered.digest), json);
    // The version in force put again (a retried deploy, a compile of the shadow) is no new entry in the history.
    if (inForce !== registered.digest) {
      const entry = { digest: registered.digest, version: policy.version, enforcement, putAt: new Date(this.now()).toISOString() };
      write.lpush(versionsKey, JSON.stringify(entry)).ltrim(versionsKey, 0, MAX_POLICY_VERSIONS - 1);
    }
    if (shadow) write.set(this.keys.policyShadow(tenant, policy.id), registered.digest);
    // A new enforcing version ends the shadow (typically it is the shadow, promoted).
    else write.set(this.keys.policyCurrent(tenant, policy.id), registered.digest).sadd(this.keys.policyIndex(tenant), policy.id).del(this.keys.policyShadow(tenant, policy.id));
    await write.exec();
    return registered;
  }

  /** The shadow version of a policy id (enforcement: shadow), or null. */
  async getShadow(tenant: string, id: string): Promise<RegisteredPolicy | null> {
    const digest = await this.redis.get(this.keys.policyShadow(tenant, id));
    return digest ? this.getByDigest(tenant, digest) : null;
  }

  /** The current version of a policy id, or NotFoundError. */
  async get(tenant: string, id: string): Promise<RegisteredPolicy> {
    const digest = await this.redis.get(this.keys.policyCurrent(tenant, id));
    if (!digest) throw new NotFoundError('policy', id);
    return this.getByDigest(tenant, digest);
  }

  async getByDigest(tenant: string, digest: string): Promise<RegisteredPolicy> {
    const cacheKey = `${tenant}:${digest}`;
    const cached = this.snapshots.get(cacheKey);
    if (cached) return cached.registered;
    const raw = await this.redis.get(this.keys.policySnapshot(tenant, digest));
    if (!raw) throw new NotFoundError('policy version', digest);
    const policy = PolicySchema.parse(JSON.parse(raw));
    const registered = { policy, digest, programDigest: programDigest(policy) };
    this.snapshots.set(cacheKey, { registered, chars: raw.length, touchedAt: 0 });
    return registered;
  }

  async list(tenant: string): Promise<RegisteredPolicy[]> {
    const ids = (await this.redis.smembers(this.keys.policyIndex(tenant))).sort();
    const found = await Promise.all(ids.map((id) => this.get(tenant, id).catch(() => null)));
    return found.filter((p): p is RegisteredPolicy => p !== null);
  }

  /**
   * The versions put under an id, newest first (the last MAX_POLICY_VERSIONS), each marked current
   * or shadow. A current or shadow version stored before versions were recorded is listed too
   * (putAt null). Empty for an id never put.
   */
  async versions(tenant: string, id: string): Promise<PolicyVersionEntry[]> {
    const [raw, current, shadow] = await Promise.all([
      this.redis.lrange(this.keys.policyVersions(tenant, id), 0, -1),
      this.redis.get(this.keys.policyCurrent(tenant, id)),
      this.redis.get(this.keys.policyShadow(tenant, id)),
    ]);
    const entries: PolicyVersionEntry[] = [];
    for (const line of raw) {
      const entry = JSON.parse(line) as { digest: string; version: string; enforcement: 'enforce' | 'shadow'; putAt: string };
      entries.push({ ...entry, current: false, shadow: false });
    }
    for (const [digest, enforcement] of [[current, 'enforce'], [shadow, 'shadow']] as const) {
      if (!digest) continue;
      // The newest entry of that digest is the one in force.
      const live = entries.find((e) => e.digest === digest && e.enforcement === enforcement);
      if (live) {
        if (enforcement === 'enforce') live.current = true;
        else live.shadow = true;
        continue;
      }
      const { policy } = await this.getByDigest(tenant, digest);
      entries.unshift({ digest, version: policy.version, enforcement, putAt: null, current: enforcement === 'enforce', shadow: enforcement === 'shadow' });
    }
    return entries;
  }

  /**
   * A version of an id by digest (or a prefix of one, 8 hex digits at least, that names one
   * version of its history): NotFoundError unless the id has had that version.
   */
  async version(tenant: string, id: string, digest: string): Promise<RegisteredPolicy> {
    const known = await this.versions(tenant, id);
    const matches = [...new Set(known.map((e) => e.digest).filter((d) => d === digest || (digest.length >= 8 && d.startsWith(digest))))];
    if (matches.length !== 1) throw new NotFoundError(`version of policy '${id}'`, digest);
    return this.getByDigest(tenant, matches[0]);
  }

  /** Remove the id and its history of versions (the immutable snapshots stay, so in-flight jobs still resolve). */
  async delete(tenant: string, id: string): Promise<boolean> {
    const [[, removed]] = (await this.redis
      .multi()
      .del(this.keys.policyCurrent(tenant, id))
      .del(this.keys.policyShadow(tenant, id))
      .srem(this.keys.policyIndex(tenant), id)
      .del(this.keys.policyVersions(tenant, id))
      .exec()) as [[Error | null, number], [Error | null, number]];
    return removed > 0;
  }
}
