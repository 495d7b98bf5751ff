import type { Redis } from 'ioredis';
import { DecisionSchema, type Decision } from '@guardagent/schemas';
import { keys, type Keys } from './keys';
import { StageJobPayloadSchema, type StageJobPayload } from './pipeline-state';
import { RedisScript } from './redis-script';

/** What is announced on a client's reply channel. */
export interface ReplyMessage {
  kind: 'decision' | 'compile';
  tenant: string;
  id: string;
  /** The stored decision itself, so a waiting client needs no extra read (absent on duplicates). */
  decision?: unknown;
}

// Store-if-absent, count, and announce in one round trip. Only the first stored decision
// counts and is announced, so a retried or recovered job can never produce a second decision or
// a second announcement (the first was published with the store, atomically; a caller whose
// subscriber missed it reads the store when it resubscribes). The job leaves the tenant's
// in-flight set either way.
//
// A worker saving from inside a stage job passes its job lock (KEYS[7], token ARGV[11]): when the
// lock is no longer its own (it froze or lost Redis for longer than the lock, and another worker
// took the job over), nothing is written and -1 is returned. Without this fence a worker thawed
// after a freeze could store an answer computed from a stale view (say, a guard run it judged
// hung because its own clock jumped) ahead of the worker that now owns the job.
//
// A pending decision brings the hash that records its approval token (KEYS[8], expiry ms ARGV[12],
// field/value pairs from ARGV[13]), written only with the decision: the token exists exactly when
// the decision that hands it out does, so neither a re-run nor a worker that lost its lock leaves
// a second token behind.
const SAVE_DECISION = new RedisScript(
  'save-decision',
  `
if ARGV[11] ~= '' and redis.call('GET', KEYS[7]) ~= ARGV[11] then return -1 end
redis.call('ZREM', KEYS[5], ARGV[7])
local ok = redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], 'NX')
if ok then
  -- A tenant's decisions are counted per policy id for its first ARGV[9] policies only.
  local field = ARGV[3]
  if redis.call('SISMEMBER', KEYS[6], ARGV[8]) == 1 or redis.call('SCARD', KEYS[6]) < tonumber(ARGV[9]) then
    redis.call('SADD', KEYS[6], ARGV[8])
  else
    field = ARGV[10]
  end
  redis.call('HINCRBY', KEYS[2], field, 1)
  if ARGV[6] ~= '' then
    redis.call('HINCRBY', KEYS[3], 'done', 1)
    redis.call('HINCRBY', KEYS[3], ARGV[6], 1)
    redis.call('RPUSH', KEYS[4], ARGV[7])
    redis.call('EXPIRE', KEYS[3], ARGV[2])
    redis.call('EXPIRE', KEYS[4], ARGV[2])
  end
end
if ok and ARGV[12] ~= '' then
  redis.call('HSET', KEYS[8], unpack(ARGV, 13))
  redis.call('PEXPIRE', KEYS[8], ARGV[12])
end
if ok and ARGV[4] ~= '' then redis.call('PUBLISH', ARGV[4], ARGV[5]) end
if ok then return 1 end
return 0
`,
);

/**
 * Policy ids one tenant's decision counts are labelled with; decisions of any further policy
 * (clients name inline policies freely) are counted under OTHER_POLICIES_LABEL, so the metric's
 * label sets stay bounded.
 */
export const METRIC_POLICIES_PER_TENANT = 100;
export const OTHER_POLICIES_LABEL = '_other';

export interface SaveDecisionOptions {
  tenant: string;
  replyTo: string | null;
  batchId: string | null;
  /** The stage job's lock and this worker's token: save only while the lock is still this worker's. */
  fence?: JobFence | null;
  /** Written only if this decision is stored (a pending decision's approval token record). */
  record?: HashWrite | null;
}

/** A Redis hash (with its expiry) to write together with something else, atomically. */
export interface HashWrite {
  key: string;
  fields: Record<string, string>;
  ttlMs: number;
}

/** A BullMQ job lock held by a worker, as a fencing token for writes made while running the job. */
export interface JobFence {
  lockKey: string;
  token: string;
}

/** What saveDecision did: stored it, found one stored already (first wins), or refused (lock lost). */
export type SaveDecisionOutcome = 'stored' | 'duplicate' | 'lock-lost';

/** Decisions (and compile results) by id, stored before they are announced. */
export class ResultStore {
  private readonly keys: Keys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly ttlSeconds: number,
  ) {
    this.keys = keys(prefix);
  }

  /** Store the decision unless one exists (or the fence says the job is no longer ours), then announce it. */
  async saveDecision(decision: Decision, options: SaveDecisionOptions): Promise<SaveDecisionOutcome> {
    const { tenant, replyTo, batchId, fence, record } = options;
    const outcome = decision.status === 'guard_error' ? 'errors' : decision.decision === 'allow' ? 'allowed' : decision.decision === 'deny' ? 'denied' : 'pending';
    const decisionJson = JSON.stringify(decision);
    // The announcement carries the decision, so the waiting client needs no read.
    const head = JSON.stringify({ kind: 'decision', tenant, id: decision.id } satisfies ReplyMessage);
    const withDecision = `${head.slice(0, -1)},"decision":${decisionJson}}`;
    const stored = (await SAVE_DECISION.run(
      this.redis,
      [
        this.keys.decision(tenant, decision.id),
        this.keys.metricsDecisions(),
        batchId ? this.keys.batch(tenant, batchId) : this.keys.metricsDecisions(),
        batchId ? this.keys.batchResults(tenant, batchId) : this.keys.metricsDecisions(),
        this.keys.jobsInFlight(tenant),
        this.keys.metricsPolicies(tenant),
        fence?.lockKey ?? this.keys.metricsDecisions(),
        record?.key ?? this.keys.metricsDecisions(),
      ],
      [
        decisionJson,
        String(this.ttlSeconds),
        `${tenant}|${decision.policy.id}|${decision.decision}|${decision.status}`,
        replyTo ?? '',
        withDecision,
        batchId ? outcome : '',
        decision.id,
        decision.policy.id,
        String(METRIC_POLICIES_PER_TENANT),
        `${tenant}|${OTHER_POLICIES_LABEL}|${decision.decision}|${decision.status}`,
        fence?.token ?? '',
        record ? String(record.ttlMs) : '',
        ...(record ? Object.entries(record.fields).flat() : []),
      ],
    )) as number;
    return stored === 1 ? 'stored' : stored === -1 ? 'lock-lost' : 'duplicate';
  }

  /** Store a job's payload once (NX: a retried hop writes nothing), kept as long as decisions. */
  async storeJobPayload(tenant: string, id: string, payload: StageJobPayload): Promise<void> {
    await this.redis.set(this.keys.jobPayload(tenant, id), JSON.stringify(payload), 'EX', this.ttlSeconds, 'NX');
  }

  /** A stored job payload, or null once it expired. */
  async getJobPayload(tenant: string, id: string): Promise<StageJobPayload | null> {
    const raw = await this.redis.get(this.keys.jobPayload(tenant, id));
    return raw === null ? null : StageJobPayloadSchema.parse(JSON.parse(raw));
  }

  async getDecision(tenant: string, id: string): Promise<Decision | null> {
    const raw = await this.redis.get(this.keys.decision(tenant, id));
    return raw ? DecisionSchema.parse(JSON.parse(raw)) : null;
  }

  async getDecisions(tenant: string, ids: readonly string[]): Promise<Array<Decision | null>> {
    if (ids.length === 0) return [];
    const raws = await this.redis.mget(ids.map((id) => this.keys.decision(tenant, id)));
    return raws.map((raw) => (raw ? DecisionSchema.parse(JSON.parse(raw)) : null));
  }

  async saveCompileResult(tenant: string, id: string, result: unknown, replyTo: string | null): Promise<void> {
    await this.redis.set(this.keys.compileResult(tenant, id), JSON.stringify(result), 'EX', this.ttlSeconds);
    if (replyTo) await this.redis.publish(replyTo, JSON.stringify({ kind: 'compile', tenant, id } satisfies ReplyMessage));
  }

  async getCompileResult(tenant: string, id: string): Promise<unknown | null> {
    const raw = await this.redis.get(this.keys.compileResult(tenant, id));
    return raw ? JSON.parse(raw) : null;
  }
}
