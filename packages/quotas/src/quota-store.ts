import type { Redis } from 'ioredis';
import { QuotaExceededError } from '@guardagent/errors';
import { keys, type Keys } from '@guardagent/queue';
import { TenantQuotaOverridesSchema, type TenantQuotaOverrides, type TenantQuotas } from './tenant-quotas';

/** Per-tenant quota overrides in Redis (a hash of numbers); what is not set takes the defaults. */
export class QuotaStore {
  private readonly keys: Keys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    readonly defaults: TenantQuotas,
  ) {
    this.keys = keys(prefix);
  }

  async overrides(tenant: string): Promise<TenantQuotaOverrides> {
    const raw = await this.redis.hgetall(this.keys.tenantQuotas(tenant));
    const numbers = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Number(v)]));
    const parsed = TenantQuotaOverridesSchema.safeParse(numbers);
    return parsed.success ? parsed.data : {};
  }

  async effective(tenant: string): Promise<TenantQuotas> {
    return { ...this.defaults, ...(await this.overrides(tenant)) };
  }

  /** Replaces the tenant's overrides (an empty object returns the tenant to the defaults). */
  async setOverrides(tenant: string, overrides: TenantQuotaOverrides): Promise<TenantQuotas> {
    const key = this.keys.tenantQuotas(tenant);
    const multi = this.redis.multi().del(key);
    const entries = Object.entries(overrides).filter(([, v]) => v !== undefined);
    if (entries.length > 0) multi.hset(key, Object.fromEntries(entries.map(([k, v]) => [k, String(v)])));
    await multi.exec();
    return this.effective(tenant);
  }

  /**
   * Throws QuotaExceededError when storing `policyId` would add a policy past the tenant's limit
   * (updating an existing one always fits). Checked before the write; two new policies stored at
   * the same moment may both pass the check.
   */
  async assertPolicyRoom(tenant: string, policyId: string): Promise<void> {
    const [[, exists], [, count]] = (await this.redis
      .multi()
      .sismember(this.keys.policyIndex(tenant), policyId)
      .scard(this.keys.policyIndex(tenant))
      .exec()) as [[Error | null, number], [Error | null, number]];
    if (exists === 1) return;
    const { policies } = await this.effective(tenant);
    if (count >= policies) throw new QuotaExceededError(`the tenant already stores ${count} policies`, policies, { quota: 'policies' });
  }
}
