import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ValidationError } from '@guardagent/errors';
import { RESERVED_TENANT_IDS, isReservedTenantId, keys, type Keys } from '@guardagent/queue';
import type { ApiKeyStore, IssuedKey } from './api-key-store';
import { ConflictError } from './gateway-errors';
import type { KeyScope } from './key-scopes';

/** The tenant the admin key acts as; no API key can be issued for it. */
export const ADMIN_TENANT = 'default';

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
    const record: TenantRecord = { id, ...(input.name ? { name: input.name } : {}), createdAt: new Date().toISOString() };
    const created = await this.redis.set(this.keys.tenant(id), JSON.stringify(record), 'NX');
    if (created !== 'OK') throw new ConflictError(`tenant '${id}' already exists`, { id });
    const key = await this.apiKeys.issue(id, { name: 'first key', scopes: input.scopes ?? FIRST_KEY_SCOPES });
    return { id, apiKey: key.apiKey, key, createdAt: record.createdAt };
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
