import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ValidationError } from '@guardagent/errors';
import { RESERVED_TENANT_IDS, isReservedTenantId, keys, type Keys } from '@guardagent/queue';
import { ADMIN_TENANT, type ApiKeyStore, type IssuedKey, type KeyScope } from '@guardagent/api-keys';
import { ConflictError } from './gateway-errors';

/** The first key of a tenant belongs to whoever runs it: it may mint the narrower keys agents get. */
export const FIRST_KEY_SCOPES: readonly KeyScope[] = ['admin'];

interface TenantRecord {
  id: string;
  name?: string;
  createdAt: string;
}

/** Tenants in Redis; their keys are in the ApiKeyStore. */
export class TenantStore {
  private readonly keys: Keys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    readonly apiKeys: ApiKeyStore,
  ) {
    this.keys = keys(prefix);
  }

  async create(input: { id?: string; name?: string; scopes?: readonly KeyScope[] }): Promise<{ id: string; apiKey: string; key: IssuedKey; createdAt: string }> {
    const id = input.id ?? `t-${randomBytes(6).toString('hex')}`;
    if (id === ADMIN_TENANT) throw new ConflictError(`tenant id '${ADMIN_TENANT}' is reserved for the admin key`, { id });
    if (isReservedTenantId(id)) {
      throw new ValidationError('tenant', [{ path: 'id', message: `is reserved: the deployment's own keys use it (${RESERVED_TENANT_IDS.join(', ')})` }]);
    }
    const now = new Date();
    const record: TenantRecord = { id, ...(input.name ? { name: input.name } : {}), createdAt: now.toISOString() };
    const created = await this.redis.set(this.keys.tenant(id), JSON.stringify(record), 'NX');
    if (created !== 'OK') throw new ConflictError(`tenant '${id}' already exists`, { id });
    await this.redis.zadd(this.keys.tenantIndex(), now.getTime(), id);
    const key = await this.apiKeys.issue(id, { name: 'first key', scopes: input.scopes ?? FIRST_KEY_SCOPES });
    return { id, apiKey: key.apiKey, key, createdAt: record.createdAt };
  }

  /**
   * Tenants oldest first, a page at a time, with how many there are. Tenants made before the
   * index existed are added to it the first time any gateway lists (one SCAN of the tenant keys).
   */
  async list(options: { limit: number; offset: number }): Promise<{ tenants: TenantRecord[]; total: number }> {
    await this.indexEarlierTenants();
    const [ids, total] = await Promise.all([this.redis.zrange(this.keys.tenantIndex(), String(options.offset), String(options.offset + options.limit - 1)), this.redis.zcard(this.keys.tenantIndex())]);
    if (ids.length === 0) return { tenants: [], total };
    const records = await this.redis.mget(ids.map((id) => this.keys.tenant(id)));
    const tenants = records.flatMap((raw, i) => {
      if (!raw) return [];
      const record = JSON.parse(raw) as TenantRecord;
      return [{ id: ids[i]!, ...(record.name ? { name: record.name } : {}), createdAt: record.createdAt }];
    });
    return { tenants, total };
  }

  /** Add the tenants created before the index to it, once per deployment. */
  private async indexEarlierTenants(): Promise<void> {
    if (await this.redis.exists(this.keys.tenantIndexBuilt())) return;
    const head = this.keys.tenant('');
    // On a Redis Cluster the deployment's keys share one hash tag, so one node holds them all;
    // SCAN each primary all the same, as the prefix may be set without one.
    const cluster = this.redis as unknown as { nodes?: (role: string) => Redis[] };
    const nodes = typeof cluster.nodes === 'function' ? cluster.nodes('master') : [this.redis];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, found] = await node.scan(cursor, 'MATCH', `${head}*`, 'COUNT', 1000);
        cursor = next;
        const ids = found.map((key) => key.slice(head.length)).filter((id) => id !== '' && !id.includes(':') && !id.startsWith('~'));
        if (ids.length === 0) continue;
        const records = await this.redis.mget(ids.map((id) => this.keys.tenant(id)));
        const scored = records.flatMap((raw, i) => (raw ? [String(Date.parse((JSON.parse(raw) as TenantRecord).createdAt) || 0), ids[i]!] : []));
        if (scored.length > 0) await this.redis.zadd(this.keys.tenantIndex(), 'NX', ...scored);
      } while (cursor !== '0');
    }
    await this.redis.set(this.keys.tenantIndexBuilt(), '1');
  }

  async exists(id: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.tenant(id))) === 1;
  }

  /**
   * Tenants created before ids were reserved whose id is reserved (RESERVED_TENANT_IDS): their keys
   * share key space with the deployment's own. The gateway warns about each at start.
   */
  async withReservedIds(): Promise<string[]> {
    const found = await Promise.all(RESERVED_TENANT_IDS.map(async (id) => ((await this.redis.exists(this.keys.tenant(id))) === 1 ? id : null)));
    return found.filter((id): id is string => id !== null);
  }
}
