import { sameKey } from './api-key';
import type { ApiKeyStore } from './api-key-store';
import { KEY_SCOPES } from './key-scopes';
import type { Caller } from './route-spec';
import { ADMIN_TENANT } from './tenant-store';

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
