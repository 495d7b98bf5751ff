import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { RequestTimeoutError } from './gateway-errors';

/**
 * A JSON body (read whole by Fastify) as a stream that fails with RequestTimeoutError unless it
 * ends within `ms` of now. Fastify's reader answers that error with its status (408). `onIdle` is
 * called instead when the time is up and nobody is reading the stream yet (nothing would answer
 * the error): the caller closes the connection.
 */
export function bodyWithin(payload: Readable, ms: number, onIdle: () => void): BodyDeadline {
  const deadline = new BodyDeadline(ms, onIdle);
  payload.pipe(deadline);
  return deadline;
}

class BodyDeadline extends Transform {
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number, onIdle: () => void) {
    super();
    this.timer = setTimeout(() => {
      const error = new RequestTimeoutError(`the request body did not arrive within ${ms} ms`, { bodyTimeoutMs: ms });
      if (this.listenerCount('error') > 0) this.destroy(error);
      else onIdle();
    }, ms);
    this.timer.unref();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    clearTimeout(this.timer);
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    clearTimeout(this.timer);
    done(error);
  }

  /** Stops the clock (the answer went out without the body). */
  cancel(): void {
    clearTimeout(this.timer);
  }
}

interface StreamDeadline {
  /** Time the body may take before any byte counts. */
  graceMs: number;
  /** After the grace, each byte received buys this much more time: 1 s per `minBytesPerSecond` bytes. */
  minBytesPerSecond: number;
}

/**
 * The chunks of a streamed body, failing with RequestTimeoutError once the time spent waiting for
 * them passes `graceMs + received / minBytesPerSecond`. Only time the reader spends waiting for
 * bytes counts: while it is busy with what it has (queueing jobs, waiting for the tenant's quota)
 * it reads nothing, TCP holds the client back, and the clock stands. So a body trickled slower
 * than the rate is cut off soon after the grace, however long it is, and a fast one never is.
 *
 * On a timeout the underlying stream is left as it is (not destroyed), so the answer can still be
 * written; the caller closes the connection with it.
 */
export async function* chunksInTime(stream: Readable, deadline: StreamDeadline, now: () => number = () => performance.now()): AsyncGenerator<Buffer> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  let waitedMs = 0;
  let bytes = 0;
  let timedOut = false;
  try {
    for (;;) {
      const budgetMs = deadline.graceMs + (bytes * 1000) / deadline.minBytesPerSecond - waitedMs;
      const started = now();
      const next = iterator.next();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          timedOut = true;
          reject(
            new RequestTimeoutError(
              `the request body arrived slower than ${deadline.minBytesPerSecond} bytes/s (${bytes} bytes after ${Math.round(waitedMs + budgetMs)} ms of waiting)`,
              { graceMs: deadline.graceMs, minBytesPerSecond: deadline.minBytesPerSecond, receivedBytes: bytes },
            ),
          );
        }, Math.max(0, budgetMs));
      });
      let result: IteratorResult<Buffer | string>;
      try {
        result = await Promise.race([next, late]);
      } finally {
        clearTimeout(timer);
      }
      waitedMs += now() - started;
      if (result.done) return;
      const chunk = typeof result.value === 'string' ? Buffer.from(result.value) : result.value;
      bytes += chunk.length;
      yield chunk;
    }
  } finally {
    // A timed-out read stays pending until the connection closes (Promise.race has handled its
    // outcome); returning the iterator would destroy the socket before the 408 is written.
    if (!timedOut) await iterator.return?.();
  }
}
