import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { WEBHOOK_HEADERS, approvalViewOf, signWebhook } from '@guardagent/client';
import { errorMessage } from '@guardagent/errors';
import { RedisScript, keys } from '@guardagent/queue';
import { RedisApprovalStore, type ApprovalRecord } from '@guardagent/rails';
import { WebhookDestinationError, postWebhook } from './webhook-post';
import type { Logger } from '@guardagent/telemetry';

/** A webhook: where to POST and the HMAC-SHA256 key that signs what is sent. */
export interface WebhookTarget {
  url: string;
  secret: string;
}

interface StoredWebhook extends WebhookTarget {
  createdAt: string;
}

/** Each tenant's own approval webhook (under the deployment's prefix, beside its quota overrides). */
export class TenantWebhooks {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async get(tenant: string): Promise<StoredWebhook | null> {
    const h = await this.redis.hgetall(keys(this.prefix).tenantWebhook(tenant));
    return h.url && h.secret ? { url: h.url, secret: h.secret, createdAt: h.createdAt ?? '' } : null;
  }

  /** Set the tenant's webhook; without a secret one is made (and returned: shown once). */
  async set(tenant: string, url: string, secret?: string): Promise<StoredWebhook> {
    const stored = { url, secret: secret ?? `whsec_${randomBytes(32).toString('base64url')}`, createdAt: new Date().toISOString() };
    await this.redis.hset(keys(this.prefix).tenantWebhook(tenant), stored);
    return stored;
  }

  async delete(tenant: string): Promise<boolean> {
    return (await this.redis.del(keys(this.prefix).tenantWebhook(tenant))) === 1;
  }
}

/**
 * The JSON body POSTed for a held call (`type: approval.pending`): the API's view of it
 * (approvalViewOf) without its status, which is always pending here, and links. Never the token.
 */
function approvalEvent(record: ApprovalRecord, now: number): Record<string, unknown> {
  const path = `/v1/approvals/${record.id}`;
  const { status: _pending, ...view } = approvalViewOf(record, now);
  return { type: 'approval.pending', ...view, links: { view: path, approve: `${path}/approve`, reject: `${path}/reject` } };
}

// Takes up to ARGV[3] webhooks due by ARGV[1], leases each until ARGV[2] (a dispatcher that dies
// mid-delivery leaves it to be taken again then) and counts the attempt: one round trip, and two
// gateways never take the same webhook at once.
const CLAIM = new RedisScript(
  'approval-webhooks-claim',
  `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, id in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', ARGV[2], id)
  out[#out + 1] = id
  out[#out + 1] = redis.call('HINCRBY', KEYS[2], id, 1)
end
return out
`,
);

export interface ApprovalWebhooksOptions {
  redis: Redis;
  /** Every shard's key prefix (each has its own queue of webhooks). */
  shardPrefixes: readonly string[];
  tenantWebhooks: TenantWebhooks;
  /** The deployment's webhook, for tenants without their own (GUARDAGENT_APPROVAL_WEBHOOK_URL / _SECRET). */
  fallback: WebhookTarget | null;
  /** Let tenants' own webhooks reach private, loopback and link-local addresses. */
  allowPrivateHosts: boolean;
  logger: Logger;
  /** How often the queues are read (default 500 ms). */
  pollMs?: number;
  /** Attempts per webhook, the first included (default 10). */
  attempts?: number;
  /** The wait before the first retry, doubled for each next one (default 1 s), and its cap (default 5 min). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** One attempt's limit (default 10 s); a webhook taken is leased for this plus 30 s. */
  timeoutMs?: number;
  now?: () => number;
}

/**
 * Delivers the webhook of each new held call: the executor queues it (with the pending decision,
 * in the same script) and a gateway POSTs it, signed, to the tenant's webhook or the deployment's,
 * retrying with backoff. The check never waits for it. A webhook is dropped once its call is no
 * longer pending (decided, used, expired), when nobody has a webhook for its tenant, on an answer
 * that says retrying will not help (4xx other than 408 and 429), or after its last attempt.
 * Delivery is at least once: receivers deduplicate on the `guardagent-webhook-id` header.
 */
export class ApprovalWebhooks {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly stores: Map<string, RedisApprovalStore>;

  constructor(private readonly options: ApprovalWebhooksOptions) {
    this.stores = new Map(options.shardPrefixes.map((prefix) => [prefix, new RedisApprovalStore({ redis: options.redis, prefix })]));
  }

  start(): void {
    if (this.timer || this.stopped) return;
    const loop = () => {
      this.running = this.drain()
        .catch((error: unknown) => this.options.logger.warn({ code: 'APPROVAL_WEBHOOK' }, `approval webhooks: ${errorMessage(error)}`))
        .finally(() => {
          this.running = null;
          if (!this.stopped) this.timer = setTimeout(loop, this.options.pollMs ?? 500);
        });
    };
    this.timer = setTimeout(loop, 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** Deliver every webhook due now, in every shard (returns when each was tried once). */
  async drain(): Promise<void> {
    for (const prefix of this.options.shardPrefixes) {
      for (;;) {
        const claimed = await this.claim(prefix, 16);
        if (claimed.length === 0) break;
        await Promise.all(claimed.map(({ id, attempt }) => this.deliver(prefix, id, attempt)));
      }
    }
  }

  private async claim(prefix: string, count: number): Promise<Array<{ id: string; attempt: number }>> {
    const k = keys(prefix);
    const now = this.now();
    const lease = now + (this.options.timeoutMs ?? 10_000) + 30_000;
    const flat = (await CLAIM.run(this.options.redis, [k.approvalWebhooks(), k.approvalWebhookAttempts()], [now, lease, count])) as Array<string | number>;
    const out: Array<{ id: string; attempt: number }> = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ id: String(flat[i]), attempt: Number(flat[i + 1]) });
    return out;
  }

  private async settle(prefix: string, id: string, retryInMs: number | null): Promise<void> {
    const k = keys(prefix);
    if (retryInMs === null) {
      await this.options.redis.multi().zrem(k.approvalWebhooks(), id).hdel(k.approvalWebhookAttempts(), id).exec();
    } else {
      await this.options.redis.zadd(k.approvalWebhooks(), 'XX', this.now() + retryInMs, id);
    }
  }

  private async deliver(prefix: string, id: string, attempt: number): Promise<void> {
    const { logger } = this.options;
    const record = await this.stores.get(prefix)!.get(id);
    // Decided, used, expired or gone: nobody needs to be asked any more.
    if (record?.status !== 'pending') return this.settle(prefix, id, null);
    const own = await this.options.tenantWebhooks.get(record.tenant);
    const target = own ?? this.options.fallback;
    if (!target) return this.settle(prefix, id, null);
    const now = this.now();
    const body = JSON.stringify(approvalEvent(record, now));
    const timestamp = Math.floor(now / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'GuardAgent-Webhooks',
      [WEBHOOK_HEADERS.id]: record.id,
      [WEBHOOK_HEADERS.timestamp]: String(timestamp),
      [WEBHOOK_HEADERS.signature]: signWebhook(target.secret, timestamp, body),
      [WEBHOOK_HEADERS.attempt]: String(attempt),
    };
    const fields = { code: 'APPROVAL_WEBHOOK', tenant: record.tenant, approval: record.id, attempt, url: redactedUrl(target.url) };
    let failure: string;
    let retry = true;
    try {
      const status = await postWebhook(target.url, body, headers, {
        timeoutMs: this.options.timeoutMs ?? 10_000,
        publicOnly: own !== null && !this.options.allowPrivateHosts,
      });
      if (status >= 200 && status < 300) return this.settle(prefix, id, null);
      failure = `answered ${status}`;
      retry = status === 408 || status === 429 || status >= 500 || status < 200;
    } catch (error) {
      failure = errorMessage(error);
      if (error instanceof WebhookDestinationError) retry = false;
    }
    const attempts = this.options.attempts ?? 10;
    if (!retry || attempt >= attempts) {
      logger.warn(fields, `approval webhook not delivered (${failure}); ${retry ? `gave up after ${attempt} attempts` : 'not retried'}`);
      return this.settle(prefix, id, null);
    }
    const delay = Math.min((this.options.retryBaseMs ?? 1000) * 2 ** (attempt - 1), this.options.retryMaxMs ?? 300_000);
    logger.info(fields, `approval webhook attempt failed (${failure}); retrying in ${delay} ms`);
    return this.settle(prefix, id, delay);
  }
}

/** A URL for logs: its origin only (a chat service's webhook carries its secret in the path or query). */
function redactedUrl(url: string): string {
  return new URL(url).origin;
}
