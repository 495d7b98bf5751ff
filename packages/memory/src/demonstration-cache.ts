import { LRUCache } from 'lru-cache';
import type { StoredDemonstration } from './stored-demonstration';

interface Entry {
  version: string;
  demos: readonly StoredDemonstration[];
  chars: number;
}

/** Characters of demonstration text one process keeps in this cache, at most. */
const MAX_CACHED_CHARS = 256 * 1024 * 1024;

/**
 * In-process copy of each (tenant, policy) demonstration list, valid while the Redis version counter is
 * unchanged: a retrieval then costs one GET instead of an HGETALL of every demonstration. Bounded by
 * lists and by characters, so a process serving many tenants does not keep every list forever.
 */
export class DemonstrationCache {
  private readonly entries: LRUCache<string, Entry>;

  constructor(maxEntries: number) {
    this.entries = new LRUCache<string, Entry>({ max: maxEntries, maxSize: MAX_CACHED_CHARS, sizeCalculation: (entry) => Math.max(1, entry.chars) });
  }

  get(key: string, version: string): readonly StoredDemonstration[] | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return undefined;
    return entry.demos;
  }

  set(key: string, version: string, demos: readonly StoredDemonstration[]): void {
    const chars = demos.reduce((sum, d) => sum + d.input.length + d.output.length + (d.plan?.length ?? 0) + (d.code?.length ?? 0), 0);
    this.entries.set(key, { version, demos: Object.freeze(demos.map((d) => Object.freeze({ ...d }))), chars });
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
