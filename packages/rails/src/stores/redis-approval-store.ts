import type { Redis } from 'ioredis';
import { canonicalJson, toolCallHash } from '../canonical-json';
import type {
  ApprovalCall,
  ApprovalRecord,
  ApprovalRequest,
  ApprovalStatus,
  ApprovalStore,
  ApprovalTicket,
  ApproveResult,
  ConsumeResult,
  DecideOptions,
  RejectResult,
} from './approval-store';
import { approvalIdOf, approvalTokenHash, newApprovalToken } from './approval-token';
import { assertApprover, assertDecisionReason } from './approver';
import { DEPLOYMENT_SEGMENTS, RedisScript, keys, type HashWrite } from '@guardagent/queue';

// Both scripts read-check-write one hash atomically: a token is decided once and consumed once,
// whatever the number of API servers and executors racing on it. A rejection may withdraw an
// approval not used yet; nothing undoes a rejection.
const DECIDE = new RedisScript(
  'approval-decide',
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return 'unknown' end
local f = redis.call('HMGET', KEYS[1], 'status', 'expiresAt', 'tenant', 'subjectId')
if ARGV[3] ~= '' and f[3] ~= ARGV[3] then return 'unknown' end
if f[1] == 'used' then return 'used' end
local approving = ARGV[4] == 'approve'
if f[1] == 'rejected' then return approving and 'rejected' or 'already-rejected' end
if tonumber(f[2]) <= tonumber(ARGV[1]) then return 'expired' end
if approving then
  if f[4] == ARGV[2] then return 'self-approval' end
  if f[1] == 'approved' then return 'already-approved' end
end
redis.call('HSET', KEYS[1], 'status', approving and 'approved' or 'rejected', 'approver', ARGV[2], 'decidedAt', ARGV[1])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'reason', ARGV[5]) end
return approving and 'approved' or 'rejected'
`,
);

const CONSUME = new RedisScript(
  'approval-consume',
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return 'unknown' end
local f = redis.call('HMGET', KEYS[1], 'status', 'expiresAt', 'callHash', 'subjectId', 'tenant', 'policyId', 'usedBy')
if ARGV[4] ~= '' and f[5] ~= ARGV[4] then return 'unknown' end
if f[1] == 'used' then
  if ARGV[7] ~= '' and f[7] == ARGV[7] and f[3] == ARGV[2] then return 'allowed' end
  return 'used'
end
if tonumber(f[2]) <= tonumber(ARGV[1]) then return 'expired' end
if f[3] ~= ARGV[2] or f[4] ~= ARGV[3] or (ARGV[5] ~= '' and f[6] ~= ARGV[5]) then return 'mismatch' end
if f[1] == 'rejected' then return 'rejected' end
if f[1] ~= 'approved' then return 'not-approved' end
if ARGV[6] == '1' then redis.call('HSET', KEYS[1], 'status', 'used', 'usedAt', ARGV[1], 'usedBy', ARGV[7]) end
return 'allowed'
`,
);

// The record, its tenant's index (kept as long as its longest-lived entry) and its webhook, at
// once (as ResultStore.saveDecisions writes them with a pending decision).
const WRITE = new RedisScript(
  'approval-write',
  `
redis.call('HSET', KEYS[1], unpack(cjson.decode(ARGV[2])))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[2], ARGV[1]) end
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[3])
return 1
`,
);

/** A token issued but not yet recorded: `write` is the Redis hash that records it. */
export interface PreparedApproval {
  ticket: ApprovalTicket;
  write: HashWrite;
}

export interface RedisApprovalStoreOptions {
  redis: Redis;
  /** Key namespace (keys: `<prefix>:approval:<sha256(token)>`). */
  prefix?: string;
  /** How long an expired or used token is remembered (so it is refused as such, not as unknown). Default 1 day. */
  retentionSeconds?: number;
  now?: () => number;
}

/** Which open approvals a listing wants (see RedisApprovalStore.list). */
export interface ApprovalQuery {
  /** `pending` (default): waiting for a person; `approved`: approved and not used yet. */
  status?: 'pending' | 'approved';
  policy?: string;
  tool?: string;
  subject?: string;
  /** At most this many (default 50, at most 500). */
  limit?: number;
  /** Where the previous page ended (its `next`). */
  cursor?: string;
}

export interface ApprovalPage {
  approvals: ApprovalRecord[];
  /** Pass as `cursor` for the next page; null when the listing is complete. */
  next: string | null;
}

/** Index entries one listing reads at most, whatever its filters (the cursor resumes past them). */
const LIST_SCAN_BUDGET = 2000;
const LIST_BATCH = 200;
const CURSOR = /^(\d{1,16})\.([0-9a-f]{64})$/;

/**
 * Approval tokens in Redis. Only the token's sha256 is a key; the hash holds the bound call
 * (tool, canonical args and their sha256, subject, tenant, policy), why it was held, status and
 * expiry. Each tenant's open approvals are also indexed by creation time, for listings.
 */
export class RedisApprovalStore implements ApprovalStore {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly retentionMs: number;
  private readonly now: () => number;

  constructor(options: RedisApprovalStoreOptions) {
    this.redis = options.redis;
    this.prefix = options.prefix ?? 'guardagent';
    this.retentionMs = (options.retentionSeconds ?? 86_400) * 1000;
    this.now = options.now ?? Date.now;
  }

  private keyOfId(id: string): string {
    return `${this.prefix}:${DEPLOYMENT_SEGMENTS.approval}:${id}`;
  }

  private key(token: string): string {
    return this.keyOfId(approvalTokenHash(token));
  }

  /**
   * A new token and the hash that records it, not yet written. The executor writes the hash in the
   * same script that stores the pending decision carrying the token (see ResultStore.saveDecision),
   * so a token exists exactly when its decision does: a re-run, or a worker that lost its job,
   * mints nothing that stays. The write also indexes the approval under its tenant and queues its
   * webhook (delivered by the gateway, if the tenant or the deployment has one).
   */
  prepare(request: ApprovalRequest): PreparedApproval {
    const token = newApprovalToken();
    const id = approvalTokenHash(token);
    const now = this.now();
    const expiresAtMs = now + request.ttlSeconds * 1000;
    const k = keys(this.prefix);
    return {
      ticket: { token, id, expiresAt: new Date(expiresAtMs).toISOString() },
      write: {
        key: this.keyOfId(id),
        fields: {
          tenant: request.tenant,
          policyId: request.policyId,
          tool: request.tool,
          args: canonicalJson(request.args),
          callHash: toolCallHash(request.tool, request.args),
          subjectId: request.subjectId,
          status: 'pending',
          reasons: JSON.stringify(request.reasons ?? []),
          rules: JSON.stringify(request.rules ?? []),
          ...(request.callId ? { callId: request.callId } : {}),
          createdAt: String(now),
          expiresAt: String(expiresAtMs),
        },
        ttlMs: request.ttlSeconds * 1000 + this.retentionMs,
        index: { key: k.approvalIndex(request.tenant), member: id, score: now },
        outbox: { key: k.approvalWebhooks(), member: id, score: now },
      },
    };
  }

  async create(request: ApprovalRequest): Promise<ApprovalTicket> {
    const { ticket, write } = this.prepare(request);
    await WRITE.run(
      this.redis,
      [write.key, write.index!.key, write.outbox!.key],
      [write.ttlMs, JSON.stringify(Object.entries(write.fields).flat()), write.index!.member, write.index!.score, write.outbox!.score],
    );
    return ticket;
  }

  async get(tokenOrId: string, options: { tenant?: string } = {}): Promise<ApprovalRecord | null> {
    const id = approvalIdOf(tokenOrId);
    if (id === null) return null;
    const h = await this.redis.hgetall(this.keyOfId(id));
    if (!h.status || (options.tenant !== undefined && h.tenant !== options.tenant)) return null;
    return recordOf(id, h, this.now());
  }

  async approve(tokenOrId: string, approver: string, options: DecideOptions = {}): Promise<ApproveResult> {
    return (await this.decide(tokenOrId, approver, 'approve', options)) as ApproveResult;
  }

  async reject(tokenOrId: string, approver: string, options: DecideOptions = {}): Promise<RejectResult> {
    return (await this.decide(tokenOrId, approver, 'reject', options)) as RejectResult;
  }

  private async decide(tokenOrId: string, approver: string, action: 'approve' | 'reject', options: DecideOptions): Promise<string> {
    assertApprover(approver);
    assertDecisionReason(options.reason);
    const id = approvalIdOf(tokenOrId);
    if (id === null) return 'unknown';
    return (await DECIDE.run(this.redis, [this.keyOfId(id)], [this.now(), approver, options.tenant ?? '', action, options.reason ?? ''])) as string;
  }

  async consume(token: string, call: ApprovalCall): Promise<ConsumeResult> {
    return this.redeem(token, call, true);
  }

  async peek(token: string, call: ApprovalCall): Promise<ConsumeResult> {
    return this.redeem(token, call, false);
  }

  /**
   * A tenant's open approvals, oldest first, a page at a time. Entries of calls decided, used or
   * expired since are dropped from the index as the listing meets them.
   */
  async list(tenant: string, query: ApprovalQuery = {}): Promise<ApprovalPage> {
    const status = query.status ?? 'pending';
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
    const index = keys(this.prefix).approvalIndex(tenant);
    const cursor = query.cursor ? CURSOR.exec(query.cursor) : null;
    let from = cursor ? { score: Number(cursor[1]), id: cursor[2]! } : null;
    const found: ApprovalRecord[] = [];
    const stale: string[] = [];
    const now = this.now();
    let scanned = 0;
    for (;;) {
      // Members of one score come in member order: skip the ones at the cursor's score up to it.
      const skip = from ? (await this.redis.zrangebyscore(index, from.score, from.score)).filter((id) => id <= from!.id).length : 0;
      const page = await this.redis.zrangebyscore(index, from?.score ?? '-inf', '+inf', 'WITHSCORES', 'LIMIT', skip, LIST_BATCH);
      const entries: Array<{ id: string; score: number }> = [];
      for (let i = 0; i < page.length; i += 2) entries.push({ id: page[i]!, score: Number(page[i + 1]) });
      const pipeline = this.redis.pipeline();
      for (const entry of entries) pipeline.hgetall(this.keyOfId(entry.id));
      const hashes = entries.length > 0 ? ((await pipeline.exec()) ?? []) : [];
      let read = 0;
      for (const [i, entry] of entries.entries()) {
        read += 1;
        scanned += 1;
        from = entry;
        const [error, fields] = hashes[i] ?? [new Error('no reply'), null];
        if (error) throw error;
        const h = fields as Record<string, string>;
        const record = h.status ? recordOf(entry.id, h, now) : null;
        if (!record || record.tenant !== tenant || (record.status !== 'pending' && record.status !== 'approved')) {
          stale.push(entry.id);
        } else if (
          record.status === status &&
          (query.policy === undefined || record.policyId === query.policy) &&
          (query.tool === undefined || record.tool === query.tool) &&
          (query.subject === undefined || record.subjectId === query.subject)
        ) {
          found.push(record);
        }
        if (found.length === limit || scanned >= LIST_SCAN_BUDGET) break;
      }
      const exhausted = entries.length < LIST_BATCH && read === entries.length;
      if (exhausted || found.length === limit || scanned >= LIST_SCAN_BUDGET) {
        if (stale.length > 0) await this.redis.zrem(index, ...stale);
        return { approvals: found, next: exhausted || from === null ? null : `${from.score}.${from.id}` };
      }
    }
  }

  private async redeem(token: string, call: ApprovalCall, use: boolean): Promise<ConsumeResult> {
    return (await CONSUME.run(
      this.redis,
      [this.key(token)],
      [this.now(), toolCallHash(call.tool, call.args), call.subjectId, call.tenant ?? '', call.policyId ?? '', use ? '1' : '0', call.callId ?? ''],
    )) as ConsumeResult;
  }
}

const parseList = (raw: string | undefined): string[] => {
  if (!raw) return [];
  const value = JSON.parse(raw) as unknown;
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
};

/** A stored hash as a record; a pending or approved one past its expiry reads as `expired`. */
function recordOf(id: string, h: Record<string, string>, now: number): ApprovalRecord {
  const expiresAtMs = Number(h.expiresAt);
  const stored = h.status as ApprovalStatus;
  const status: ApprovalStatus = (stored === 'pending' || stored === 'approved') && expiresAtMs <= now ? 'expired' : stored;
  return {
    id,
    tenant: h.tenant!,
    policyId: h.policyId!,
    tool: h.tool!,
    args: JSON.parse(h.args ?? '{}') as Record<string, unknown>,
    subjectId: h.subjectId!,
    status,
    reasons: parseList(h.reasons),
    rules: parseList(h.rules),
    ...(h.callId ? { decisionId: h.callId } : {}),
    ...(h.approver ? { approver: h.approver } : {}),
    ...(h.reason ? { reason: h.reason } : {}),
    ...(h.decidedAt || h.approvedAt ? { decidedAt: new Date(Number(h.decidedAt ?? h.approvedAt)).toISOString() } : {}),
    createdAt: new Date(Number(h.createdAt)).toISOString(),
    expiresAt: new Date(expiresAtMs).toISOString(),
  };
}
