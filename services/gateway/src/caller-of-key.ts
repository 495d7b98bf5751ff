import { sameKey } from './api-key';
import type { Caller } from './route-spec';
import { ADMIN_TENANT, type TenantStore } from './tenant-store';

/** Longer presented keys are not looked up at all. */
const MAX_KEY_CHARS = 512;

/**
 * Who an API key belongs to: the admin key acts as tenant 'default'; a tenant's key as its tenant;
 * anything else is null. Shared by the gateway and `guardagent mcp --port`.
 */
export async function callerOfKey(deps: { adminKey?: string | undefined; tenants: Pick<TenantStore, 'tenantOfKey'> }, key: string): Promise<Caller | null> {
  if (deps.adminKey && sameKey(key, deps.adminKey)) return { tenant: ADMIN_TENANT, admin: true };
  const tenant = key.length <= MAX_KEY_CHARS ? await deps.tenants.tenantOfKey(key) : null;
  return tenant ? { tenant, admin: false } : null;
}
