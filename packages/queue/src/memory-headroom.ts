import type { Redis } from 'ioredis';
import { StoreFullError } from '@guardagent/errors';
import { isRedisOutOfMemory } from './redis-out-of-memory';
import { parseMemoryInfo } from './redis-info';

export interface MemoryHeadroomOptions {
  /** Refuse new jobs once Redis uses this share of its `maxmemory` (default 0.9). */
  refuseAtRatio?: number;
  /** How long one `INFO memory` reading is trusted, ms (default 1000). */
  refreshMs?: number;
  now?: () => number;
}

/**
 * Refuses new jobs up front when Redis is nearly full. A job accepted at `maxmemory` cannot be
 * answered (its decision, and even its fail-closed error, is a Redis write), so it is better
 * refused with a typed error the caller can retry. The reading is cached, so this costs one
 * `INFO memory` per `refreshMs` per process, not one per job; concurrent callers share it.
 */
export class MemoryHeadroom {
  private readonly refuseAtRatio: number;
  private readonly refreshMs: number;
  private readonly now: () => number;
  private reading: { usedBytes: number; maxBytes: number; at: number } | null = null;
  private inFlight: Promise<{ usedBytes: number; maxBytes: number }> | null = null;

  constructor(private readonly redis: Redis, options: MemoryHeadroomOptions = {}) {
    this.refuseAtRatio = options.refuseAtRatio ?? 0.9;
    this.refreshMs = options.refreshMs ?? 1000;
    this.now = options.now ?? Date.now;
  }

  /** Throw StoreFullError when Redis is at or over the refusal share of its maxmemory. */
  async assertRoom(): Promise<void> {
    const { usedBytes, maxBytes } = await this.read();
    if (maxBytes > 0 && usedBytes >= maxBytes * this.refuseAtRatio) {
      throw new StoreFullError(
        `Redis holds ${usedBytes} of its ${maxBytes} maxmemory bytes (refusing new jobs from ${Math.round(this.refuseAtRatio * 100)} %): nothing was queued; retry later`,
        { usedBytes, maxBytes, retryAfterSeconds: Math.max(1, Math.ceil(this.refreshMs / 1000)) },
      );
    }
  }

  /** Forget the cached reading (after Redis refused a write as out of memory). */
  markFull(): void {
    this.reading = null;
  }

  private async read(): Promise<{ usedBytes: number; maxBytes: number }> {
    if (this.reading && this.now() - this.reading.at < this.refreshMs) return this.reading;
    this.inFlight ??= this.redis
      .info('memory')
      .then((info) => {
        const parsed = parseMemoryInfo(info);
        this.reading = { ...parsed, at: this.now() };
        return parsed;
      })
      .finally(() => (this.inFlight = null));
    return this.inFlight;
  }
}

/** Run a write that queues jobs; Redis refusing it as out of memory becomes StoreFullError. */
export async function refuseWhenFull<T>(headroom: MemoryHeadroom, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isRedisOutOfMemory(error)) throw error;
    headroom.markFull();
    throw new StoreFullError(`Redis is at its maxmemory and refused the job: nothing was queued; retry later`, { retryAfterSeconds: 1 });
  }
}
