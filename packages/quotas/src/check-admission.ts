import type { Redis } from 'ioredis';
import { QuotaExceededError } from '@guardagent/errors';
import { RedisScript, keys, type Keys } from '@guardagent/queue';
import type { TenantQuotas } from './tenant-quotas';

/**
 * A check that was never decided (its job was lost) leaves the in-flight set after this long, so
 * a lost job cannot hold a tenant's quota for ever. Longer than any check takes.
 */
export const IN_FLIGHT_STALE_MS = 15 * 60_000;

// One atomic step for n checks: refill the tenant's token bucket, drop stale in-flight entries,
// then admit all n (take n tokens, add the ids) or none. The tenant's overrides (KEYS[3]) win over
// the defaults (ARGV). Bulk work (ARGV[7] = '1': batches, replays) must leave half of the burst in
// the bucket and half of the in-flight room free, so the tenant's live checks always find room
// next to it. Returns { 1 } or { 0, quota, limit, retryAfterMs } (-1: can never fit).
const ADMIT = new RedisScript(
  'admit-checks',
  `
local now = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local o = redis.call('HMGET', KEYS[3], 'checksPerSecond', 'checkBurst', 'jobsInFlight')
local rate = tonumber(o[1]) or tonumber(ARGV[3])
local burst = tonumber(o[2]) or tonumber(ARGV[4])
local inflightMax = tonumber(o[3]) or tonumber(ARGV[5])
local staleMs = tonumber(ARGV[6])
local tokenReserve = 0
local inflightReserve = 0
if ARGV[7] == '1' then
  tokenReserve = math.floor(burst / 2)
  inflightReserve = math.floor(inflightMax / 2)
end
if n > burst - tokenReserve then return {0, 'checkBurst', burst, -1} end
if n > inflightMax - inflightReserve then return {0, 'jobsInFlight', inflightMax, -1} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - staleMs)
local inflight = redis.call('ZCARD', KEYS[2])
if inflight + n > inflightMax - inflightReserve then return {0, 'jobsInFlight', inflightMax, 1000} end
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or burst
local at = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate / 1000)
if tokens - n < tokenReserve then return {0, 'checksPerSecond', rate, math.ceil((n + tokenReserve - tokens) * 1000 / rate)} end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - n), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
for i = 8, #ARGV do redis.call('ZADD', KEYS[2], now, ARGV[i]) end
redis.call('PEXPIRE', KEYS[2], staleMs * 2)
return {1}
`,
);

/**
 * How a submission is admitted. `bulk`: work the tenant queued in bulk (a batch, a replay), which
 * must leave half of the tenant's burst and of its in-flight room to its live checks.
 */
export interface AdmitOptions {
  bulk?: boolean;
}

/** The most checks one bulk admission may carry for a tenant with these quotas (half the burst and half the in-flight room, at least 1). */
export function bulkChunkLimit(quotas: Pick<TenantQuotas, 'checkBurst' | 'jobsInFlight'>): number {
  const room = (max: number) => max - Math.floor(max / 2);
  return Math.max(1, Math.min(room(quotas.checkBurst), room(quotas.jobsInFlight)));
}

export type AdmissionResult = { admitted: true } | { admitted: false; quota: keyof TenantQuotas; limit: number; retryAfterMs: number | null };

/**
 * Admission of checks against a tenant's rate and in-flight quotas, shared by every gateway through
 * Redis. A decision removes its job from the in-flight set (ResultStore's save-decision script).
 */
export class CheckAdmission {
  private readonly keys: Keys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly defaults: TenantQuotas,
    private readonly now: () => number = Date.now,
  ) {
    this.keys = keys(prefix);
  }

  async tryAdmit(tenant: string, jobIds: readonly string[], options: AdmitOptions = {}): Promise<AdmissionResult> {
    const result = (await ADMIT.run(
      this.redis,
      [this.keys.quotaBucket(tenant), this.keys.jobsInFlight(tenant), this.keys.tenantQuotas(tenant)],
      [this.now(), jobIds.length, this.defaults.checksPerSecond, this.defaults.checkBurst, this.defaults.jobsInFlight, IN_FLIGHT_STALE_MS, options.bulk ? '1' : '0', ...jobIds],
    )) as [number, string?, number?, number?];
    if (result[0] === 1) return { admitted: true };
    const retry = Number(result[3]);
    return { admitted: false, quota: result[1] as keyof TenantQuotas, limit: Number(result[2]), retryAfterMs: retry < 0 ? null : retry };
  }

  /** Admit or throw QuotaExceededError (429 with Retry-After at the gateway). Nothing is written on a refusal. */
  async admit(tenant: string, jobIds: readonly string[], options: AdmitOptions = {}): Promise<void> {
    const result = await this.tryAdmit(tenant, jobIds, options);
    if (!result.admitted) throw quotaError(result);
  }

  /**
   * Admit, waiting while the tenant is over a quota that time will free (the bucket refills,
   * checks finish): a batch upload or a replay slows down to the tenant's rate instead of failing
   * halfway. Gives up (QuotaExceededError) when the wait would pass `maxWaitMs` or the submission
   * can never fit; an abort ends the wait with the signal's reason.
   */
  async admitWaiting(tenant: string, jobIds: readonly string[], options: AdmitOptions & { maxWaitMs: number; signal?: AbortSignal }): Promise<void> {
    const deadline = this.now() + options.maxWaitMs;
    for (;;) {
      options.signal?.throwIfAborted();
      const result = await this.tryAdmit(tenant, jobIds, options);
      if (result.admitted) return;
      if (result.retryAfterMs === null || this.now() + result.retryAfterMs > deadline) throw quotaError(result);
      await sleep(Math.max(10, result.retryAfterMs), options.signal);
    }
  }

  /** Checks of the tenant submitted and not yet decided (stale entries included until the next admission). */
  async inFlight(tenant: string): Promise<number> {
    return this.redis.zcard(this.keys.jobsInFlight(tenant));
  }
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function quotaError(result: Extract<AdmissionResult, { admitted: false }>): QuotaExceededError {
  const what =
    result.quota === 'checksPerSecond'
      ? `over the tenant's check rate (${result.limit}/s)`
      : result.quota === 'jobsInFlight'
        ? `too many of the tenant's checks are undecided (at most ${result.limit} in flight)`
        : `more checks at once than the tenant's burst allows (${result.limit})`;
  return new QuotaExceededError(what, result.limit, {
    quota: result.quota,
    ...(result.retryAfterMs !== null ? { retryAfterSeconds: Math.max(1, Math.ceil(result.retryAfterMs / 1000)) } : {}),
  });
}
