export { ApiKeyStore, type IssuedKey, type KeyIdentity, type KeyView } from './api-key-store';
export { generateApiKey, hashApiKey, sameKey } from './api-key';
export { KEY_SCOPES, KeyScopeSchema, scopeGrants, requireScopeForPolicy, type KeyScope } from './key-scopes';
export { callerOfKey, ADMIN_TENANT, type Caller } from './caller-of-key';
