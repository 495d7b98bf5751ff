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

// Store-if-absent, count, and announce in one round trip, for one decision or a chunk's worth.
// Only the first stored decision of a check counts and is announced, so a retried or recovered
// job can never produce a second decision or a second announcement (the first was published with
// the store, atomically; a caller whose subscriber missed it reads the store when it resubscribes).
// A check leaves its tenant's in-flight set either way.
//
// A worker saving from inside a stage job passes its job lock (KEYS[2], token ARGV[2]): when the
// lock is no longer its own (it froze or lost Redis for longer than the lock, and another worker
// took the job over), nothing is written and -1 is returned. Without this fence a worker thawed
// after a freeze could store an answer computed from a stale view (say, a guard run it judged
// hung because its own clock jumped) ahead of the worker that now owns the job.
//
// A pending decision brings the hash that records its approval token (its key, expiry ms and
// field/value pairs as a JSON array), written only with the decision: the token exists exactly
// when the decision that hands it out does, so neither a re-run nor a worker that lost its lock
// leaves a second token behind.
//
// Announcements are grouped by reply channel: one PUBLISH per channel, carrying one message, or
// a JSON array of them when several checks of one client were decided together.
//
// A decision the policy asks to record is appended, with its job, to the tenant's decision log (a
// stream), only if it is the first; each log touched is trimmed, exactly, to its entry cap (XADD
// MAXLEN) and its age cap (XTRIM MINID: entry ids are Redis' clock in ms).
//
// A decision that carries a shadow's (see Decision.shadow) counts whether the shadow agreed in
// the shadow counts (KEYS[3]), labelled by policy as the decision counts are.
//
// The approval record is also listed in its tenant's index of open approvals (kept at least as
// long as the record) and queued for its webhook (see ApprovalWebhooks), so a webhook exists
// exactly when its pending decision does. The webhook queue is capped at WEBHOOK_QUEUE_MAX
// entries (the oldest due go first), for a deployment that runs no gateway to deliver them.
//
// KEYS: [1] decision counts, [2] fence lock, [3] shadow counts, then SAVE_KEYS per decision: decision, batch counts,
// batch results, tenant in-flight set, tenant policy labels, approval record, decision log,
// approval index, webhook queue.
// ARGV: [1] ttl s, [2] fence token, [3] policies per tenant, [4] log entries cap, [5] oldest log
// entry id kept (ms), then SAVE_ARGS per decision: decision JSON, count field, count field past
// the policy cap, reply channel, message head (the message is head .. decision JSON .. '}'), batch outcome, id, policy id, approval record ttl ms,
// approval record pairs (JSON array), log entry JSON, shadow count field, shadow count field past
// the policy cap, approval id, approval index score, webhook due score.
const SAVE_KEYS = 9;
const SAVE_ARGS = 16;
const WEBHOOK_QUEUE_MAX = 100_000;
const SAVE_DECISIONS = new RedisScript(
  'save-decisions',
  `
if ARGV[2] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[2] then return -1 end
local ttl = ARGV[1]
local maxPolicies = tonumber(ARGV[3])
local results = {}
local logs, logOrder = {}, {}
-- Per chunk, not per check: in-flight removals by set, counts by field, announcements by channel,
-- and whether a tenant's policy has a label of its own (a set and a policy id, asked once).
local leaving, leavingOrder = {}, {}
local counts, countOrder = {}, {}
local labelled = {}
local channels, channelOrder = {}, {}
local function append(map, order, key, value)
  local list = map[key]
  if not list then
    list = {}
    map[key] = list
    order[#order + 1] = key
  end
  list[#list + 1] = value
end
local n = (#KEYS - 3) / ${SAVE_KEYS}
for i = 0, n - 1 do
  local k = 3 + i * ${SAVE_KEYS}
  local a = 5 + i * ${SAVE_ARGS}
  local id = ARGV[a + 7]
  append(leaving, leavingOrder, KEYS[k + 4], id)
  local ok = redis.call('SET', KEYS[k + 1], ARGV[a + 1], 'EX', ttl, 'NX')
  if ok then
    -- A tenant's decisions are counted per policy id for its first maxPolicies policies only.
    local labels = KEYS[k + 5]
    local policyId = ARGV[a + 8]
    labelled[labels] = labelled[labels] or {}
    local own = labelled[labels][policyId]
    if own == nil then
      own = redis.call('SISMEMBER', labels, policyId) == 1
      if not own and redis.call('SCARD', labels) < maxPolicies then
        redis.call('SADD', labels, policyId)
        own = true
      end
      labelled[labels][policyId] = own
    end
    local field = own and ARGV[a + 2] or ARGV[a + 3]
    if counts[field] == nil then
      counts[field] = 0
      countOrder[#countOrder + 1] = field
    end
    counts[field] = counts[field] + 1
    if ARGV[a + 12] ~= '' then redis.call('HINCRBY', KEYS[3], own and ARGV[a + 12] or ARGV[a + 13], 1) end
    local batchOutcome = ARGV[a + 6]
    if batchOutcome ~= '' then
      redis.call('HINCRBY', KEYS[k + 2], 'done', 1)
      redis.call('HINCRBY', KEYS[k + 2], batchOutcome, 1)
      redis.call('RPUSH', KEYS[k + 3], id)
      redis.call('EXPIRE', KEYS[k + 2], ttl)
      redis.call('EXPIRE', KEYS[k + 3], ttl)
    end
    if ARGV[a + 9] ~= '' then
      redis.call('HSET', KEYS[k + 6], unpack(cjson.decode(ARGV[a + 10])))
      redis.call('PEXPIRE', KEYS[k + 6], ARGV[a + 9])
      if ARGV[a + 14] ~= '' then
        redis.call('ZADD', KEYS[k + 8], ARGV[a + 15], ARGV[a + 14])
        if redis.call('PTTL', KEYS[k + 8]) < tonumber(ARGV[a + 9]) then redis.call('PEXPIRE', KEYS[k + 8], ARGV[a + 9]) end
        if ARGV[a + 16] ~= '' then
          redis.call('ZADD', KEYS[k + 9], ARGV[a + 16], ARGV[a + 14])
          local over = redis.call('ZCARD', KEYS[k + 9]) - ${WEBHOOK_QUEUE_MAX}
          if over > 0 then redis.call('ZREMRANGEBYRANK', KEYS[k + 9], 0, over - 1) end
        end
      end
    end
    if ARGV[a + 11] ~= '' then
      redis.call('XADD', KEYS[k + 7], 'MAXLEN', ARGV[4], '*', 'e', ARGV[a + 11])
      if not logs[KEYS[k + 7]] then
        logs[KEYS[k + 7]] = true
        logOrder[#logOrder + 1] = KEYS[k + 7]
      end
    end
    -- The announcement is its head and the decision (sent once, not twice).
    if ARGV[a + 4] ~= '' then append(channels, channelOrder, ARGV[a + 4], ARGV[a + 5] .. ARGV[a + 1] .. '}') end
    results[i + 1] = 1
  else
    results[i + 1] = 0
  end
end
-- A check leaves its tenant's in-flight set whether or not its decision was the first.
for _, set in ipairs(leavingOrder) do redis.call('ZREM', set, unpack(leaving[set])) end
for _, log in ipairs(logOrder) do redis.call('XTRIM', log, 'MINID', ARGV[5]) end
for _, field in ipairs(countOrder) do redis.call('HINCRBY', KEYS[1], field, counts[field]) end
for _, channel in ipairs(channelOrder) do
  local list = channels[channel]
  if #list == 1 then
    redis.call('PUBLISH', channel, list[1])
  else
    redis.call('PUBLISH', channel, '[' .. table.concat(list, ',') .. ']')
  end
end
return results
`,
);

/** The shadow count fields of a decision (own label, and past the policy cap), or '' when it has no shadow. */
function shadowCountFields(tenant: string, decision: Decision): [string, string] {
  if (!decision.shadow) return ['', ''];
  const outcome = decision.shadow.agrees === null ? 'undecided' : decision.shadow.agrees ? 'agree' : 'disagree';
  return [`${tenant}|${decision.policy.id}|${outcome}`, `${tenant}|${OTHER_POLICIES_LABEL}|${outcome}`];
}

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

/** One decision of a saveDecisions call, with where it goes. */
export interface DecisionToSave extends Omit<SaveDecisionOptions, 'fence'> {
  decision: Decision;
  /** Its decision log entry (JSON), appended only if this decision is stored (see DecisionLog). */
  logEntry?: string | null;
}

/** How much of each tenant's decision log is kept. */
export interface DecisionLogRetention {
  maxEntries: number;
  maxAgeSeconds: number;
}

export const DEFAULT_DECISION_LOG_RETENTION: DecisionLogRetention = { maxEntries: 100_000, maxAgeSeconds: 7 * 86_400 };

/** A member to add to a sorted set together with a HashWrite. */
interface SortedSetEntry {
  key: string;
  member: string;
  score: number;
}

/**
 * A Redis hash (with its expiry) to write together with something else, atomically. `index`: a
 * sorted set the hash is listed in, kept at least as long as the hash; `outbox`: a sorted set of
 * work to do about it (an approval's webhook), with no expiry.
 */
export interface HashWrite {
  key: string;
  fields: Record<string, string>;
  ttlMs: number;
  index?: SortedSetEntry;
  outbox?: SortedSetEntry;
}

/** A BullMQ job lock held by a worker, as a fencing token for writes made while running the job. */
export interface JobFence {
  /** The stage job the lock is of (for errors and logs). */
  jobId?: string;
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
    private readonly logRetention: DecisionLogRetention = DEFAULT_DECISION_LOG_RETENTION,
    private readonly now: () => number = Date.now,
  ) {
    this.keys = keys(prefix);
  }

  /** Store the decision unless one exists (or the fence says the job is no longer ours), then announce it. */
  async saveDecision(decision: Decision, options: SaveDecisionOptions): Promise<SaveDecisionOutcome> {
    const { fence, ...rest } = options;
    const [outcome] = await this.saveDecisions([{ decision, ...rest }], fence ?? null);
    return outcome;
  }

  /**
   * Store many decisions in one round trip (each first-wins, as saveDecision), announcing them
   * grouped by reply channel. Under a fence that is no longer this worker's, nothing is written
   * and every outcome is 'lock-lost'.
   */
  async saveDecisions(entries: readonly DecisionToSave[], fence: JobFence | null = null): Promise<SaveDecisionOutcome[]> {
    if (entries.length === 0) return [];
    const keys: string[] = [this.keys.metricsDecisions(), fence?.lockKey ?? this.keys.metricsDecisions(), this.keys.metricsShadow()];
    const oldestKept = Math.max(0, this.now() - this.logRetention.maxAgeSeconds * 1000);
    const args: string[] = [String(this.ttlSeconds), fence?.token ?? '', String(METRIC_POLICIES_PER_TENANT), String(this.logRetention.maxEntries), String(oldestKept)];
    for (const { decision, tenant, replyTo, batchId, record, logEntry } of entries) {
      const outcome = decision.status === 'guard_error' ? 'errors' : decision.decision === 'allow' ? 'allowed' : decision.decision === 'deny' ? 'denied' : 'pending';
      const decisionJson = JSON.stringify(decision);
      // The announcement carries the decision, so the waiting client needs no read; the script
      // puts the decision into it, so it crosses the wire once.
      const head = JSON.stringify({ kind: 'decision', tenant, id: decision.id } satisfies ReplyMessage);
      keys.push(
        this.keys.decision(tenant, decision.id),
        batchId ? this.keys.batch(tenant, batchId) : this.keys.metricsDecisions(),
        batchId ? this.keys.batchResults(tenant, batchId) : this.keys.metricsDecisions(),
        this.keys.jobsInFlight(tenant),
        this.keys.metricsPolicies(tenant),
        record?.key ?? this.keys.metricsDecisions(),
        this.keys.decisionLog(tenant),
        record?.index?.key ?? this.keys.metricsDecisions(),
        record?.outbox?.key ?? this.keys.metricsDecisions(),
      );
      args.push(
        decisionJson,
        `${tenant}|${decision.policy.id}|${decision.decision}|${decision.status}`,
        `${tenant}|${OTHER_POLICIES_LABEL}|${decision.decision}|${decision.status}`,
        replyTo ?? '',
        replyTo ? `${head.slice(0, -1)},"decision":` : '',
        batchId ? outcome : '',
        decision.id,
        decision.policy.id,
        record ? String(record.ttlMs) : '',
        record ? JSON.stringify(Object.entries(record.fields).flat()) : '',
        logEntry ?? '',
        ...shadowCountFields(tenant, decision),
        record?.index?.member ?? '',
        record?.index ? String(record.index.score) : '',
        record?.index && record.outbox ? String(record.outbox.score) : '',
      );
    }
    const stored = (await SAVE_DECISIONS.run(this.redis, keys, args)) as number | number[];
    if (stored === -1) return entries.map(() => 'lock-lost');
    return (stored as number[]).map((one) => (one === 1 ? 'stored' : 'duplicate'));
  }

  /** Which of these checks have a stored decision (one pipelined EXISTS each, one round trip). */
  async decided(checks: ReadonlyArray<{ tenant: string; id: string }>): Promise<boolean[]> {
    if (checks.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const { tenant, id } of checks) pipeline.exists(this.keys.decision(tenant, id));
    const replies = (await pipeline.exec()) ?? [];
    return checks.map((_, i) => {
      const [error, found] = replies[i] ?? [new Error('no reply')];
      if (error) throw error;
      return found === 1;
    });
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
