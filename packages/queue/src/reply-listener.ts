import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { keys } from './keys';
import type { ReplyMessage } from './result-store';

type Waiter = (message: ReplyMessage) => void;
/** Called after the subscription is back from a reconnect: announcements made meanwhile are lost. */
type Resync = () => void;

/**
 * One pub/sub subscription per client: workers announce finished jobs on the client's own
 * channel, so a client hears only about its own jobs and never polls.
 */
export class ReplyListener {
  readonly clientId = randomUUID();
  readonly channel: string;
  private readonly waiters = new Map<string, Waiter>();
  private readonly resyncs = new Map<string, Resync>();
  private started = false;

  constructor(
    private readonly subscriber: Redis,
    prefix: string,
  ) {
    this.channel = keys(prefix).replyChannel(this.clientId);
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.subscriber.on('message', (channel: string, raw: string) => {
      if (channel !== this.channel) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        return;
      }
      // Several checks of this client decided together arrive as one array (see SAVE_DECISIONS).
      for (const message of (Array.isArray(parsed) ? parsed : [parsed]) as ReplyMessage[]) {
        if (typeof message !== 'object' || message === null) continue;
        const waiter = this.waiters.get(`${message.kind}:${message.tenant}:${message.id}`);
        if (waiter) waiter(message);
      }
    });
    await this.subscriber.subscribe(this.channel);
    // Every later 'ready' is a reconnect. ioredis re-subscribes on its own, queued before this
    // PING on the same connection, so once the PING answers the subscription is live again and
    // a waiter's read of the store sees any decision whose announcement was lost in between.
    this.subscriber.on('ready', () => {
      this.subscriber.ping().then(
        () => {
          for (const resync of [...this.resyncs.values()]) resync();
        },
        () => undefined,
      );
    });
  }

  /**
   * Register interest before submitting, so an announcement sent while subscribed is never
   * missed; `onResync` runs after each reconnect, when one may have been.
   */
  expect(kind: ReplyMessage['kind'], tenant: string, id: string, onMessage: Waiter, onResync?: Resync): () => void {
    const key = `${kind}:${tenant}:${id}`;
    this.waiters.set(key, onMessage);
    if (onResync) this.resyncs.set(key, onResync);
    return () => {
      if (this.waiters.get(key) === onMessage) {
        this.waiters.delete(key);
        this.resyncs.delete(key);
      }
    };
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await this.subscriber.unsubscribe(this.channel).catch(() => undefined);
  }
}
