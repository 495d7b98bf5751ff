import type { Redis } from 'ioredis';
import { isConnectionErrorCode } from './redis-connection-error';

/** The two calls the outage log makes (a pino-style logger fits). */
export interface OutageLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

/**
 * One process's view of its Redis connections: during an outage every connection (and every
 * BullMQ queue and worker on it) reports an error on each reconnect attempt. This turns them into
 * one line when the first connection is lost and one when one is back, instead of a stack trace
 * per attempt, and gives every connection an error listener (without one, ioredis prints
 * "Unhandled error event" for each).
 */
export class RedisOutageLog {
  private down = false;
  private lostAt = 0;

  constructor(
    private readonly logger: OutageLogger | null,
    private readonly now: () => number = Date.now,
  ) {}

  /** Listen to a connection's errors and recoveries. */
  watch(redis: Redis): void {
    redis.on('error', (error: Error) => void this.absorb(error));
    redis.on('ready', () => this.back());
  }

  /** An error listener for objects that re-emit connection errors (BullMQ queues, workers). */
  readonly onError = (error: Error): void => {
    this.absorb(error);
  };

  /**
   * Whether `error` is (part of) a Redis outage, logged once per outage; false for other errors,
   * which the caller reports itself.
   */
  absorb(error: unknown): boolean {
    const isConnection = isConnectionErrorCode((error as { code?: unknown } | null)?.code);
    // Errors with no socket code ("Connection is closed", a stream that is not writeable) while a
    // connection is known to be down belong to the same outage.
    if (!isConnection && !this.down) return false;
    if (!this.down) {
      this.down = true;
      this.lostAt = this.now();
      this.logger?.warn({ err: error instanceof Error ? error.message : String(error) }, 'redis connection lost; reconnecting');
    }
    return true;
  }

  private back(): void {
    if (!this.down) return;
    this.down = false;
    this.logger?.info({ downMs: this.now() - this.lostAt }, 'redis connection back');
  }
}
