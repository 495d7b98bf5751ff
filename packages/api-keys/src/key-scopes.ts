import { z } from 'zod';
import { ScopeRequiredError } from '@guardagent/errors';

/**
 * What an API key may do. An agent holds a `check` key: it can ask for decisions but cannot
 * change what guards it. Operators hold `operate` keys; `admin` manages the tenant's keys.
 *
 * - `check`: submit checks and batches, read their decisions.
 * - `feedback`: send feedback on decisions (an add-on to `check`: feedback becomes memory).
 * - `operate`: policies (also inline in a check), compiles, demonstrations, approvals; implies `check` and `feedback`.
 * - `admin`: list, create, rotate and revoke the tenant's keys; implies everything above.
 */
export const KEY_SCOPES = ['check', 'feedback', 'operate', 'admin'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
export const KeyScopeSchema = z.enum(KEY_SCOPES);

const IMPLIES: Record<KeyScope, readonly KeyScope[]> = {
  check: [],
  feedback: [],
  operate: ['check', 'feedback'],
  admin: ['operate', 'check', 'feedback'],
};

/** Whether keys holding `held` may do what needs `needed`. */
export function scopeGrants(held: readonly KeyScope[], needed: KeyScope): boolean {
  return held.some((scope) => scope === needed || IMPLIES[scope].includes(needed));
}

/**
 * A job that carries its policy inline sets its own guard, which is the operator's act: without
 * `operate` a key may only name a stored policy by id.
 */
export function requireScopeForPolicy(held: readonly KeyScope[], policy: unknown, where: string): void {
  if (typeof policy !== 'string' && !scopeGrants(held, 'operate')) throw new ScopeRequiredError('operate', `an inline policy (${where})`);
}
