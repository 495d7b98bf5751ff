import type { Redis } from 'ioredis';
import { DecisionLogEntrySchema, type DecisionLogEntry } from '@guardagent/schemas';
import { keys, type Keys } from './keys';

export interface DecisionLogQuery {
  /** Only this policy's decisions. */
  policyId?: string;
  /** Only decisions recorded at or after this time (ms since the epoch). */
  sinceMs?: number;
  /** Only decisions recorded before this time (ms since the epoch). */
  untilMs?: number;
  /** Entries read per round trip. */
  pageSize?: number;
}

/**
 * Reads a tenant's decision log: the stream SAVE_DECISIONS appends recorded decisions to (see
 * ResultStore), oldest first, a page per round trip, so an export of any size holds one page.
 */
export class DecisionLog {
  private readonly keys: Keys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = keys(prefix);
  }

  async *entries(tenant: string, query: DecisionLogQuery = {}): AsyncGenerator<DecisionLogEntry> {
    const key = this.keys.decisionLog(tenant);
    const end = query.untilMs === undefined ? '+' : `(${Math.max(0, Math.floor(query.untilMs))}`;
    let start = query.sinceMs === undefined ? '-' : String(Math.max(0, Math.floor(query.sinceMs)));
    const pageSize = Math.max(1, query.pageSize ?? 500);
    for (;;) {
      const page = await this.redis.xrange(key, start, end, 'COUNT', pageSize);
      for (const [, fields] of page) {
        const at = fields.indexOf('e');
        if (at < 0 || at + 1 >= fields.length) continue;
        const parsed = DecisionLogEntrySchema.safeParse(parseJson(fields[at + 1]));
        // Only our script writes the log; an entry that does not read is skipped, not fatal.
        if (!parsed.success) continue;
        if (query.policyId !== undefined && parsed.data.policy.id !== query.policyId) continue;
        yield parsed.data;
      }
      if (page.length < pageSize) return;
      start = `(${page[page.length - 1][0]}`;
    }
  }

  /** Entries in the tenant's log (after trimming by count and age). */
  async size(tenant: string): Promise<number> {
    return this.redis.xlen(this.keys.decisionLog(tenant));
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
