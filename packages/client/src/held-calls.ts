import { createHash } from 'node:crypto';
import { toolCallHash } from '@guardagent/rails/approval-contract';

/** A call the guard held for approval: the token to present when the same call comes again. */
export interface HeldCall {
  token: string;
  /** The approval id (the token's sha256), to approve or reject it by. */
  id: string;
  expiresAt: string;
  /** Why it was held. */
  reasons: string[];
}

/**
 * Where an agent (or the MCP proxy) keeps the tokens of the calls GuardAgent held, by subject and
 * canonical hash of tool + arguments: the retry of the same call presents the token, so once a
 * person approved it, it runs once. In process (InMemoryHeldCalls) or in Redis (RedisHeldCalls, from `@guardagent/client/queue`),
 * so that a reconnected client, another process or a resumed run finds it.
 */
export interface HeldCalls {
  get(subjectId: string, tool: string, args: Record<string, unknown>): Promise<HeldCall | null>;
  remember(subjectId: string, tool: string, args: Record<string, unknown>, held: HeldCall): Promise<void>;
  /** Forget the call's token; with `token`, only if it is still that one (another process may have held the call afresh since). */
  forget(subjectId: string, tool: string, args: Record<string, unknown>, token?: string): Promise<void>;
}

/** The key of a held call: sha256 of the subject and the canonical hash of tool + arguments. */
export const heldCallSlot = (subjectId: string, tool: string, args: Record<string, unknown>) =>
  createHash('sha256').update(`${subjectId}\u0000${toolCallHash(tool, args)}`).digest('hex');

/** Held calls in this process only, bounded: past `max` entries the oldest goes; expired ones are never returned. */
export class InMemoryHeldCalls implements HeldCalls {
  private readonly held = new Map<string, HeldCall>();

  constructor(private readonly options: { max?: number; now?: () => number } = {}) {}

  async get(subjectId: string, tool: string, args: Record<string, unknown>): Promise<HeldCall | null> {
    const key = heldCallSlot(subjectId, tool, args);
    const entry = this.held.get(key);
    if (!entry) return null;
    if (Date.parse(entry.expiresAt) <= (this.options.now?.() ?? Date.now())) {
      this.held.delete(key);
      return null;
    }
    return { ...entry, reasons: [...entry.reasons] };
  }

  async remember(subjectId: string, tool: string, args: Record<string, unknown>, held: HeldCall): Promise<void> {
    const key = heldCallSlot(subjectId, tool, args);
    this.held.delete(key);
    this.held.set(key, { ...held, reasons: [...held.reasons] });
    const max = this.options.max ?? 10_000;
    while (this.held.size > max) this.held.delete(this.held.keys().next().value as string);
  }

  async forget(subjectId: string, tool: string, args: Record<string, unknown>, token?: string): Promise<void> {
    const key = heldCallSlot(subjectId, tool, args);
    if (token === undefined || this.held.get(key)?.token === token) this.held.delete(key);
  }
}
