import { QueueTransport } from '@guardagent/client/queue';
import { UnavailableError } from '@guardagent/errors';

interface Entry {
  transport: Promise<QueueTransport>;
  inUse: number;
  lastUsed: number;
}

/**
 * One QueueTransport per tenant (each owns a producer and a pub/sub connection), created on
 * first use and kept while used. Beyond `max` tenants the least recently used idle one is
 * closed, so a gateway serving many tenants keeps a bounded number of connections.
 */
export class TenantTransports {
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  constructor(
    private readonly options: {
      redisUrl: string;
      prefix: string;
      /** The deployment's shard count (each tenant's transport works in its tenant's shard). */
      shards?: number;
      resultTtlSeconds: number;
      /** Micro-batching of each tenant's checks (see GuardConfig.chunks). */
      chunks?: { max: number; lingerMs: number };
      max?: number;
      /** Whether Redis is reachable now (the gateway's own connection); checked before connecting a new transport. */
      redisUp?: () => boolean;
    },
  ) {}

  /** Run `fn` with the tenant's transport; the transport is not closed while `fn` runs. */
  async use<T>(tenant: string, fn: (transport: QueueTransport) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('gateway is closing');
    let entry = this.entries.get(tenant);
    if (!entry) {
      // Fail at once rather than after connect's 10 s timeout (and its reconnecting sockets).
      if (this.options.redisUp && !this.options.redisUp()) throw new UnavailableError('Redis is unavailable; retry later');
      const transport = QueueTransport.connect({
        redisUrl: this.options.redisUrl,
        prefix: this.options.prefix,
        ...(this.options.shards !== undefined ? { shards: this.options.shards } : {}),
        tenant,
        resultTtlSeconds: this.options.resultTtlSeconds,
        ...(this.options.chunks ? { chunkMax: this.options.chunks.max, chunkLingerMs: this.options.chunks.lingerMs } : {}),
        // GET /v1/checks/:id finds a chunked check's job through this record.
        locateChecks: true,
      });
      entry = { transport, inUse: 0, lastUsed: Date.now() };
      this.entries.set(tenant, entry);
      // A failed connect must not be cached: the next request tries again.
      transport.catch(() => {
        if (this.entries.get(tenant) === entry) this.entries.delete(tenant);
      });
    }
    entry.inUse += 1;
    entry.lastUsed = Date.now();
    this.evictIdle();
    try {
      return await fn(await entry.transport);
    } finally {
      entry.inUse -= 1;
      entry.lastUsed = Date.now();
    }
  }

  get size(): number {
    return this.entries.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map((e) => e.transport.then((t) => t.close(), () => undefined)));
  }

  private evictIdle(): void {
    const max = this.options.max ?? 256;
    if (this.entries.size <= max) return;
    const idle = [...this.entries.entries()].filter(([, e]) => e.inUse === 0).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [tenant, entry] of idle.slice(0, this.entries.size - max)) {
      this.entries.delete(tenant);
      void entry.transport.then((t) => t.close(), () => undefined);
    }
  }
}
