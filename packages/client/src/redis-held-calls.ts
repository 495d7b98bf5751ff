import type { Redis } from 'ioredis';
import { RedisScript, keys } from '@guardagent/queue';
import { heldCallSlot, type HeldCall, type HeldCalls } from './held-calls';

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
    return keys(this.options.prefix).heldCall(this.options.tenant, heldCallSlot(subjectId, tool, args));
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
