import { sameKey } from './api-key';
import type { ApiKeyStore } from './api-key-store';
import { KEY_SCOPES, type KeyScope } from './key-scopes';

/** The tenant the server's admin key acts as (no tenant can be created with this id). */
export const ADMIN_TENANT = 'default';

/** Who is asking: a tenant's key, or the server's admin key. */
export interface Caller {
  tenant: string;
  /** The server's admin key (GUARDAGENT_ADMIN_KEY), not a tenant's key. */
  serverAdmin: boolean;
  scopes: readonly KeyScope[];
  /** The tenant key's id; null for the server's admin key. */
  keyId: string | null;
}

/** Longer presented keys are not looked up at all. */
const MAX_KEY_CHARS = 512;

/**
 * Who an API key belongs to: the server's admin key acts as tenant 'default' with every scope;
 * a tenant's key as its tenant, with the key's scopes; anything else is null. Shared by the
 * gateway and `guardagent mcp --port`.
 */
export async function callerOfKey(deps: { adminKey?: string | undefined; apiKeys: Pick<ApiKeyStore, 'identify'> }, key: string): Promise<Caller | null> {
  if (deps.adminKey && sameKey(key, deps.adminKey)) return { tenant: ADMIN_TENANT, serverAdmin: true, scopes: [...KEY_SCOPES], keyId: null };
  const identity = key.length <= MAX_KEY_CHARS ? await deps.apiKeys.identify(key) : null;
  return identity ? { tenant: identity.tenant, serverAdmin: false, scopes: identity.scopes, keyId: identity.keyId } : null;
}
