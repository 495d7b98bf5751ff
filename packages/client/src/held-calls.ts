import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RedisScript, keys } from '@guardagent/queue';
import { toolCallHash } from '@guardagent/rails';

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
 * person approved it, it runs once. In process (InMemoryHeldCalls) or in Redis (RedisHeldCalls),
 * so that a reconnected client, another process or a resumed run finds it.
 */
export interface HeldCalls {
  get(subjectId: string, tool: string, args: Record<string, unknown>): Promise<HeldCall | null>;
  remember(subjectId: string, tool: string, args: Record<string, unknown>, held: HeldCall): Promise<void>;
  /** Forget the call's token; with `token`, only if it is still that one (another process may have held the call afresh since). */
  forget(subjectId: string, tool: string, args: Record<string, unknown>, token?: string): Promise<void>;
}

const slot = (subjectId: string, tool: string, args: Record<string, unknown>) =>
  createHash('sha256').update(`${subjectId}\u0000${toolCallHash(tool, args)}`).digest('hex');

/** Held calls in this process only, bounded: past `max` entries the oldest goes; expired ones are never returned. */
export class InMemoryHeldCalls implements HeldCalls {
  private readonly held = new Map<string, HeldCall>();

  constructor(private readonly options: { max?: number; now?: () => number } = {}) {}

  async get(subjectId: string, tool: string, args: Record<string, unknown>): Promise<HeldCall | null> {
    const key = slot(subjectId, tool, args);
    const entry = this.held.get(key);
    if (!entry) return null;
    if (Date.parse(entry.expiresAt) <= (this.options.now?.() ?? Date.now())) {
      this.held.delete(key);
      return null;
    }
    return { ...entry, reasons: [...entry.reasons] };
  }

  async remember(subjectId: string, tool: string, args: Record<string, unknown>, held: HeldCall): Promise<void> {
    const key = slot(subjectId, tool, args);
    this.held.delete(key);
    this.held.set(key, { ...held, reasons: [...held.reasons] });
    const max = this.options.max ?? 10_000;
    while (this.held.size > max) this.held.delete(this.held.keys().next().value as string);
  }

  async forget(subjectId: string, tool: string, args: Record<string, unknown>, token?: string): Promise<void> {
    const key = slot(subjectId, tool, args);
    if (token === undefined || this.held.get(key)?.token === token) this.held.delete(key);
  }
}

// Delete the entry only while it still holds this token.
const FORGET = new RedisScript(
  'held-call-forget',
  `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
if ARGV[1] ~= '' and cjson.decode(raw).token ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`,
);

export interface RedisHeldCallsOptions {
  redis: Redis;
  /** The key prefix of the tenant's shard (a QueueTransport's `prefix`). */
  prefix: string;
  tenant: string;
  now?: () => number;
}

/**
 * Held calls in Redis, per tenant, subject and call (`<prefix>:<tenant>:held-call:<sha256>`),
 * each kept until its token expires: every process and every reconnected client of the tenant
 * agrees on them. The token is kept as it is (the approval store keeps only its hash): whoever
 * reads this Redis can already do anything GuardAgent does.
 */
export class RedisHeldCalls implements HeldCalls {
  constructor(private readonly options: RedisHeldCallsOptions) {}

  private key(subjectId: string, tool: string, args: Record<string, unknown>): string {
    return keys(this.options.prefix).heldCall(this.options.tenant, slot(subjectId, tool, args));
  }

  async get(subjectId: string, tool: string, args: Record<string, unknown>): Promise<HeldCall | null> {
    const raw = await this.options.redis.get(this.key(subjectId, tool, args));
    if (raw === null) return null;
    const held = JSON.parse(raw) as HeldCall;
    return Date.parse(held.expiresAt) <= (this.options.now?.() ?? Date.now()) ? null : held;
  }

  async remember(subjectId: string, tool: string, args: Record<string, unknown>, held: HeldCall): Promise<void> {
    const ttlMs = Date.parse(held.expiresAt) - (this.options.now?.() ?? Date.now());
    if (!(ttlMs > 0)) return;
    await this.options.redis.set(this.key(subjectId, tool, args), JSON.stringify(held), 'PX', Math.ceil(ttlMs));
  }

  async forget(subjectId: string, tool: string, args: Record<string, unknown>, token?: string): Promise<void> {
    await FORGET.run(this.options.redis, [this.key(subjectId, tool, args)], [token ?? '']);
  }
}
