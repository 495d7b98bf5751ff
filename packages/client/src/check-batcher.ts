import type { PipelineState } from '@guardagent/queue';

/** Most checks per chunk a producer sends by default (the executor takes up to MAX_CHUNK_CHECKS). */
export const DEFAULT_CHUNK_MAX = 128;
/**
 * How long an open chunk waits for more checks by default: 0 means only until the event loop has
 * run what is already queued (setImmediate), so a lone check is sent at once, and checks submitted
 * together (under load, a burst of replies each submitting the next check) share a chunk.
 */
export const DEFAULT_CHUNK_LINGER_MS = 0;
/**
 * Most characters of job text (input, output, context) one chunk carries. A single check may
 * carry up to three times 2,000,000 characters: without this bound, a chunk of 128 such checks
 * would be one 768 MB queue job for Redis to hold and one executor to parse.
 */
export const DEFAULT_CHUNK_MAX_CHARS = 1_000_000;

/** The characters of job text a check carries (what its queue job's size grows with). */
export function checkChars(check: PipelineState): number {
  const { input, output, context } = check.job;
  const chars = (value: unknown) => (typeof value === 'string' ? value.length : JSON.stringify(value ?? null).length);
  return chars(input) + chars(output) + (Object.keys(context).length === 0 ? 0 : chars(context));
}

/** Split checks into chunks of at most `maxChunk` checks and `maxChars` characters (a bigger check alone). */
export function splitIntoChunks(checks: readonly PipelineState[], maxChunk: number, maxChars: number): PipelineState[][] {
  const chunks: PipelineState[][] = [];
  let current: PipelineState[] = [];
  let chars = 0;
  for (const check of checks) {
    const size = checkChars(check);
    if (current.length > 0 && (current.length >= maxChunk || chars + size > maxChars)) {
      chunks.push(current);
      current = [];
      chars = 0;
    }
    current.push(check);
    chars += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** Runs `flush` after the linger: setImmediate for 0, else a timer. Injected in tests. */
export type LingerScheduler = (flush: () => void, lingerMs: number) => void;

const defaultLingerScheduler: LingerScheduler = (flush, lingerMs) => {
  if (lingerMs <= 0) setImmediate(flush);
  else setTimeout(flush, lingerMs);
};

export interface CheckBatcherOptions {
  /** Checks per chunk at most: a full chunk is sent at once, without waiting for the linger. */
  maxChunk: number;
  /** Characters of job text per chunk at most (see DEFAULT_CHUNK_MAX_CHARS); a bigger check travels alone. */
  maxChars?: number;
  lingerMs: number;
  /** Queues one chunk (1 to maxChunk checks); every check of the chunk shares its outcome. */
  send: (checks: PipelineState[]) => Promise<void>;
  schedule?: LingerScheduler;
}

interface OpenChunk {
  checks: PipelineState[];
  chars: number;
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
    const size = checkChars(check);
    const maxChars = this.options.maxChars ?? DEFAULT_CHUNK_MAX_CHARS;
    // A check that would take the open chunk past its size goes in the next one.
    if (this.open && this.open.chars + size > maxChars) this.send(this.open);
    let chunk = this.open;
    if (!chunk) {
      const opened: OpenChunk = { checks: [], chars: 0, settle: [] };
      chunk = this.open = opened;
      this.schedule(() => this.send(opened), this.options.lingerMs);
    }
    const queued = new Promise<void>((resolve, reject) => chunk.settle.push({ resolve, reject }));
    chunk.checks.push(check);
    chunk.chars += size;
    if (chunk.checks.length >= this.options.maxChunk || chunk.chars >= maxChars) this.send(chunk);
    return queued;
  }

  /** Sends `chunk` unless it was sent already (a full chunk goes before its linger ends). */
  private send(chunk: OpenChunk): void {
    if (this.open !== chunk) return;
    this.open = null;
    this.options.send(chunk.checks).then(
      () => {
        for (const { resolve } of chunk.settle) resolve();
      },
      (error: unknown) => {
        for (const { reject } of chunk.settle) reject(error);
      },
    );
  }
}
