import type { PipelineState } from '@guardagent/queue';

/** Most checks per chunk a producer sends by default (the executor takes up to MAX_CHUNK_CHECKS). */
export const DEFAULT_CHUNK_MAX = 128;
/**
 * How long an open chunk waits for more checks by default: 0 means only until the event loop has
 * run what is already queued (setImmediate), so a lone check is sent at once, and checks submitted
 * together (under load, a burst of replies each submitting the next check) share a chunk.
 */
export const DEFAULT_CHUNK_LINGER_MS = 0;

/** Runs `flush` after the linger: setImmediate for 0, else a timer. Injected in tests. */
export type LingerScheduler = (flush: () => void, lingerMs: number) => void;

export const defaultLingerScheduler: LingerScheduler = (flush, lingerMs) => {
  if (lingerMs <= 0) setImmediate(flush);
  else setTimeout(flush, lingerMs);
};

export interface CheckBatcherOptions {
  /** Checks per chunk at most: a full chunk is sent at once, without waiting for the linger. */
  maxChunk: number;
  lingerMs: number;
  /** Queues one chunk (1 to maxChunk checks); every check of the chunk shares its outcome. */
  send: (checks: PipelineState[]) => Promise<void>;
  schedule?: LingerScheduler;
}

interface OpenChunk {
  checks: PipelineState[];
  settle: Array<{ resolve: () => void; reject: (error: unknown) => void }>;
}

/**
 * Micro-batching at the producer: checks submitted within the linger travel to the executor as one
 * queue job, so the queue's fixed cost per job is paid once per chunk instead of once per check.
 */
export class CheckBatcher {
  private open: OpenChunk | null = null;
  private readonly schedule: LingerScheduler;

  constructor(private readonly options: CheckBatcherOptions) {
    this.schedule = options.schedule ?? defaultLingerScheduler;
  }

  /** Adds a check to the open chunk; resolves once its chunk is queued (or rejects with why not). */
  add(check: PipelineState): Promise<void> {
    let chunk = this.open;
    if (!chunk) {
      const opened: OpenChunk = { checks: [], settle: [] };
      chunk = this.open = opened;
      this.schedule(() => this.send(opened), this.options.lingerMs);
    }
    const queued = new Promise<void>((resolve, reject) => chunk.settle.push({ resolve, reject }));
    chunk.checks.push(check);
    if (chunk.checks.length >= this.options.maxChunk) this.send(chunk);
    return queued;
  }

  /** Sends `chunk` unless it was sent already (a full chunk goes before its linger ends). */
  private send(chunk: OpenChunk): void {
    if (this.open !== chunk) return;
    this.open = null;
    this.options.send(chunk.checks).then(
      () => chunk.settle.forEach(({ resolve }) => resolve()),
      (error: unknown) => chunk.settle.forEach(({ reject }) => reject(error)),
    );
  }
}
