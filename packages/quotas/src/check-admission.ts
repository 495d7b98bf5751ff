import type { Redis } from 'ioredis';
import { PayloadTooLargeError, QuotaExceededError } from '@guardagent/errors';
import { RedisScript, keys, type Keys } from '@guardagent/queue';
import type { TenantQuotas } from './tenant-quotas';

/**
 * A check that was never decided (its job was lost) leaves the in-flight set after this long, so
 * a lost job cannot hold a tenant's quota for ever. Longer than any check takes.
 */
export const IN_FLIGHT_STALE_MS = 15 * 60_000;

/**
 * What a check holds in Redis besides its job: its decision (~900 bytes), the idempotency binding
 * (~216) and bookkeeping. Counted against the tenant's storedBytes with its job's JSON.
 */
export const STORED_BYTES_PER_CHECK = 1_200;

/**
 * Redis's allocator (jemalloc) rounds each value up to its size class, which adds up to a quarter
 * to a large one (a 60,863-byte job field takes 65,536): a job's JSON is counted a quarter larger.
 */
export const STORED_BYTES_FACTOR = 1.25;

/** Stored bytes are counted in this many time buckets over the decisions' TTL (at least 1 s each). */
const STORED_BUCKETS = 48;

// One atomic step for n checks: refill the tenant's token bucket, drop stale in-flight entries and
// expired storage buckets, then admit all n (take n tokens, add the ids, count their bytes) or
// none. The tenant's overrides (KEYS[3]) win over the defaults (ARGV). Bulk work (ARGV[7] = '1':
// batches, replays) must leave half of the burst in the bucket and half of the in-flight room
// free, so the tenant's live checks always find room next to it. Stored bytes (KEYS[4]) are kept
// by when they expire: field = end of the time bucket in which the checks' decisions expire, value
// = bytes; expired fields are dropped. Returns { 1 } or { 0, quota, limit, retryAfterMs }
// (retryAfterMs -1: can never fit).
const ADMIT = new RedisScript(
  'admit-checks',
  `
local now = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local o = redis.call('HMGET', KEYS[3], 'checksPerSecond', 'checkBurst', 'jobsInFlight', 'storedBytes')
local rate = tonumber(o[1]) or tonumber(ARGV[3])
local burst = tonumber(o[2]) or tonumber(ARGV[4])
local inflightMax = tonumber(o[3]) or tonumber(ARGV[5])
local storedMax = tonumber(o[4]) or tonumber(ARGV[8])
local staleMs = tonumber(ARGV[6])
local bytes = tonumber(ARGV[9])
local bucketMs = tonumber(ARGV[10])
local horizonMs = tonumber(ARGV[11])
local tokenReserve = 0
local inflightReserve = 0
if ARGV[7] == '1' then
  tokenReserve = math.floor(burst / 2)
  inflightReserve = math.floor(inflightMax / 2)
end
if n > burst - tokenReserve then return {0, 'checkBurst', burst, -1} end
if n > inflightMax - inflightReserve then return {0, 'jobsInFlight', inflightMax, -1} end
if bytes > storedMax then return {0, 'storedBytes', storedMax, -1} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - staleMs)
local inflight = redis.call('ZCARD', KEYS[2])
if inflight + n > inflightMax - inflightReserve then return {0, 'jobsInFlight', inflightMax, 1000} end
local held = redis.call('HGETALL', KEYS[4])
local used = 0
local live = {}
for i = 1, #held, 2 do
  local ends = tonumber(held[i])
  local b = tonumber(held[i + 1]) or 0
  if ends == nil or ends <= now then
    redis.call('HDEL', KEYS[4], held[i])
  else
    used = used + b
    live[#live + 1] = {ends, b}
  end
end
if used + bytes > storedMax then
  table.sort(live, function(x, y) return x[1] < y[1] end)
  local left = used
  for _, bucket in ipairs(live) do
    left = left - bucket[2]
    if left + bytes <= storedMax then return {0, 'storedBytes', storedMax, bucket[1] - now} end
  end
  return {0, 'storedBytes', storedMax, -1}
end
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or burst
local at = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate / 1000)
if tokens - n < tokenReserve then return {0, 'checksPerSecond', rate, math.ceil((n + tokenReserve - tokens) * 1000 / rate)} end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - n), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
for i = 12, #ARGV do redis.call('ZADD', KEYS[2], now, ARGV[i]) end
redis.call('PEXPIRE', KEYS[2], staleMs * 2)
if bytes > 0 then
  local ends = math.ceil((now + horizonMs) / bucketMs) * bucketMs
  redis.call('HINCRBY', KEYS[4], tostring(ends), ARGV[9])
  redis.call('PEXPIRE', KEYS[4], horizonMs + bucketMs * 2)
end
return {1}
`,
);

/**
 * How a submission is admitted. `bulk`: work the tenant queued in bulk (a batch, a replay), which
 * must leave half of the tenant's burst and of its in-flight room to its live checks. `bytes`: the
 * JSON size of the checks' jobs, counted against storedBytes (times STORED_BYTES_FACTOR, plus
 * STORED_BYTES_PER_CHECK each).
 */
export interface AdmitOptions {
  bulk?: boolean;
  bytes?: number;
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

  /** How long a check's bytes count (its decision's TTL), and the width of a storage bucket, ms. */
  private readonly storedHorizonMs: number;
  private readonly storedBucketMs: number;

  /** `storedForSeconds`: how long a check's data is kept (the decisions' TTL, GUARDAGENT_RESULT_TTL_SECONDS). */
  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly defaults: TenantQuotas,
    options: { storedForSeconds?: number; now?: () => number } = {},
  ) {
    this.keys = keys(prefix);
    this.now = options.now ?? Date.now;
    this.storedHorizonMs = (options.storedForSeconds ?? 86_400) * 1000;
    this.storedBucketMs = Math.max(1000, Math.ceil(this.storedHorizonMs / STORED_BUCKETS));
  }

  private readonly now: () => number;

  async tryAdmit(tenant: string, jobIds: readonly string[], options: AdmitOptions = {}): Promise<AdmissionResult> {
    const bytes = options.bytes === undefined ? 0 : Math.ceil(options.bytes * STORED_BYTES_FACTOR) + jobIds.length * STORED_BYTES_PER_CHECK;
    const result = (await ADMIT.run(
      this.redis,
      [this.keys.quotaBucket(tenant), this.keys.jobsInFlight(tenant), this.keys.tenantQuotas(tenant), this.keys.storedBytes(tenant)],
      [
        this.now(),
        jobIds.length,
        this.defaults.checksPerSecond,
        this.defaults.checkBurst,
        this.defaults.jobsInFlight,
        IN_FLIGHT_STALE_MS,
        options.bulk ? '1' : '0',
        this.defaults.storedBytes,
        bytes,
        this.storedBucketMs,
        this.storedHorizonMs,
        ...jobIds,
      ],
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

  /** Bytes the tenant's checks count against storedBytes now (charges whose decisions have expired left out). */
  async storedBytes(tenant: string): Promise<number> {
    const held = await this.redis.hgetall(this.keys.storedBytes(tenant));
    const now = this.now();
    return Object.entries(held).reduce((sum, [ends, bytes]) => (Number(ends) > now ? sum + (Number(bytes) || 0) : sum), 0);
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

function quotaError(result: Extract<AdmissionResult, { admitted: false }>): QuotaExceededError | PayloadTooLargeError {
  if (result.quota === 'storedBytes') {
    // Larger than the whole quota: no wait makes it fit (413). Otherwise room comes back as the
    // tenant's older checks' decisions expire (429, Retry-After).
    if (result.retryAfterMs === null) {
      return new PayloadTooLargeError(`these checks alone are more than the tenant may store in Redis (storedBytes ${result.limit})`, { quota: 'storedBytes', limit: result.limit });
    }
    return new QuotaExceededError(`the tenant's checks already hold what it may store in Redis (storedBytes ${result.limit}) until older decisions expire`, result.limit, {
      quota: 'storedBytes',
      retryAfterSeconds: Math.max(1, Math.ceil(result.retryAfterMs / 1000)),
    });
  }
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
