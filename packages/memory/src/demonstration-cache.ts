import { LRUCache } from 'lru-cache';
import { DemonstrationIndex } from './demonstration-index';
import type { StoredDemonstration } from './stored-demonstration';

interface Entry {
  version: string;
  index: DemonstrationIndex<StoredDemonstration>;
  chars: number;
}

/**
 * Characters of demonstration text one process keeps in this cache, at most (plus each list's
 * index, counted at one character per 2 bytes: ~90 per demonstration). 256 Mi characters hold one
 * policy at the cap of 100,000 demonstrations averaging up to ~2,600 characters (input, output,
 * plan and code), or many smaller ones; a list larger than this is not cached, and each retrieval
 * then reads it again and builds its index again (correct, but slow).
 */
const MAX_CACHED_CHARS = 256 * 1024 * 1024;

/**
 * In-process copy of each (tenant, policy) demonstration list, valid while the Redis version counter is
 * unchanged: a retrieval then costs one GET instead of an HGETALL of every demonstration. Each list
 * enters with its DemonstrationIndex, built once and reused by every retrieval of that version.
 * Bounded by lists and by characters, so a process serving many tenants does not keep every list forever.
 */
export class DemonstrationCache {
  private readonly entries: LRUCache<string, Entry>;

  constructor(
    maxEntries: number,
    private readonly maxChars: number,
  ) {
    this.entries = new LRUCache<string, Entry>({ max: maxEntries, maxSize: MAX_CACHED_CHARS, sizeCalculation: (entry) => Math.max(1, entry.chars) });
  }

  get(key: string, version: string): DemonstrationIndex<StoredDemonstration> | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return undefined;
    return entry.index;
  }

  /** Freeze the list, index it and keep both (unless larger than the whole cache); returns the index. */
  set(key: string, version: string, demos: readonly StoredDemonstration[]): DemonstrationIndex<StoredDemonstration> {
    const index = DemonstrationIndex.build(Object.freeze(demos.map((d) => Object.freeze({ ...d }))), this.maxChars);
    const text = demos.reduce((sum, d) => sum + d.input.length + d.output.length + (d.plan?.length ?? 0) + (d.code?.length ?? 0), 0);
    this.entries.set(key, { version, index, chars: text + Math.ceil(index.bytes / 2) });
    return index;
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
