import { createHmac, timingSafeEqual } from 'node:crypto';

/** The headers of a GuardAgent webhook (lower case, as Node and most frameworks hand them over). */
export const WEBHOOK_HEADERS = {
  /** The event's id: the held call's approval id, the same on every retry (deduplicate on it). */
  id: 'guardagent-webhook-id',
  /** Unix time in seconds when this attempt was signed. */
  timestamp: 'guardagent-webhook-timestamp',
  /** `v1=<hex HMAC-SHA256 of "<timestamp>.<body>">` under the webhook's secret. */
  signature: 'guardagent-webhook-signature',
  /** 1 for the first attempt, 2 for the first retry, … */
  attempt: 'guardagent-webhook-attempt',
} as const;

/** How far a webhook's timestamp may be from the receiver's clock by default (5 minutes). */
const DEFAULT_TOLERANCE_SECONDS = 300;

/** The signature header's value for a body sent at `timestamp` (Unix seconds). */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export interface VerifyWebhookInput {
  secret: string;
  /** The raw request body, exactly as received (not parsed and serialised again). */
  body: string;
  /** The request's headers (any case; a header given as a list counts its first value). */
  headers: Record<string, string | string[] | undefined>;
  /** Default 300 s: an older (or a future) timestamp is refused, so a captured request cannot be replayed later. */
  toleranceSeconds?: number;
  /** Unix ms (default Date.now()). */
  now?: number;
}

const header = (headers: VerifyWebhookInput['headers'], name: string): string | undefined => {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
};

/**
 * Whether a request is a GuardAgent webhook signed with `secret`, sent within the tolerance:
 * the HMAC-SHA256 of `<timestamp>.<body>` compared in constant time. Several `v1=` values
 * (separated by spaces or commas) may be sent while a secret is being changed; one must match.
 */
export function verifyWebhookSignature(input: VerifyWebhookInput): boolean {
  const timestamp = header(input.headers, WEBHOOK_HEADERS.timestamp);
  const signatures = header(input.headers, WEBHOOK_HEADERS.signature);
  if (!timestamp || !signatures || !/^\d{1,12}$/.test(timestamp)) return false;
  const seconds = Number(timestamp);
  const nowSeconds = (input.now ?? Date.now()) / 1000;
  if (Math.abs(nowSeconds - seconds) > (input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  const expected = Buffer.from(signWebhook(input.secret, seconds, input.body));
  return signatures
    .split(/[\s,]+/)
    .filter((value) => value.length > 0)
    .some((value) => {
      const given = Buffer.from(value);
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}
