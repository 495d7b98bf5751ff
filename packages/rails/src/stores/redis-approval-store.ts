import type { Redis } from 'ioredis';
import { canonicalJson, toolCallHash } from '../canonical-json';
import type {
  ApprovalCall,
  ApprovalRecord,
  ApprovalRequest,
  ApprovalStore,
  ApprovalTicket,
  ApproveResult,
  ConsumeResult,
} from './approval-store';
import { approvalTokenHash, newApprovalToken } from './approval-token';
import { assertApprover } from './approver';
import { DEPLOYMENT_SEGMENTS, RedisScript, type HashWrite } from '@guardagent/queue';

// Both scripts read-check-write one hash atomically: a token is approved once and consumed once,
// whatever the number of API servers and executors racing on it.
const APPROVE = new RedisScript(
  'approval-approve',
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return 'unknown' end
local f = redis.call('HMGET', KEYS[1], 'status', 'expiresAt', 'tenant', 'subjectId')
if ARGV[3] ~= '' and f[3] ~= ARGV[3] then return 'unknown' end
if f[1] == 'used' then return 'used' end
if tonumber(f[2]) <= tonumber(ARGV[1]) then return 'expired' end
if f[4] == ARGV[2] then return 'self-approval' end
if f[1] == 'approved' then return 'already-approved' end
redis.call('HSET', KEYS[1], 'status', 'approved', 'approver', ARGV[2], 'approvedAt', ARGV[1])
return 'approved'
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
if f[1] ~= 'approved' then return 'not-approved' end
if ARGV[6] == '1' then redis.call('HSET', KEYS[1], 'status', 'used', 'usedAt', ARGV[1], 'usedBy', ARGV[7]) end
return 'allowed'
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

/**
 * Approval tokens in Redis. Only the token's sha256 is a key; the hash holds the bound call
 * (tool, canonical args and their sha256, subject, tenant, policy), status and expiry.
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

  private key(token: string): string {
    return `${this.prefix}:${DEPLOYMENT_SEGMENTS.approval}:${approvalTokenHash(token)}`;
  }

  /**
   * A new token and the hash that records it, not yet written. The executor writes the hash in the
   * same script that stores the pending decision carrying the token (see ResultStore.saveDecision),
   * so a token exists exactly when its decision does: a re-run, or a worker that lost its job,
   * mints nothing that stays.
   */
  prepare(request: ApprovalRequest): PreparedApproval {
    const token = newApprovalToken();
    const now = this.now();
    const expiresAtMs = now + request.ttlSeconds * 1000;
    return {
      ticket: { token, expiresAt: new Date(expiresAtMs).toISOString() },
      write: {
        key: this.key(token),
        fields: {
          tenant: request.tenant,
          policyId: request.policyId,
          tool: request.tool,
          args: canonicalJson(request.args),
          callHash: toolCallHash(request.tool, request.args),
          subjectId: request.subjectId,
          status: 'pending',
          createdAt: String(now),
          expiresAt: String(expiresAtMs),
        },
        ttlMs: request.ttlSeconds * 1000 + this.retentionMs,
      },
    };
  }

  async create(request: ApprovalRequest): Promise<ApprovalTicket> {
    const { ticket, write } = this.prepare(request);
    await this.redis.multi().hset(write.key, write.fields).pexpire(write.key, write.ttlMs).exec();
    return ticket;
  }

  async get(token: string, options: { tenant?: string } = {}): Promise<ApprovalRecord | null> {
    const h = await this.redis.hgetall(this.key(token));
    if (!h.status || (options.tenant !== undefined && h.tenant !== options.tenant)) return null;
    return {
      tenant: h.tenant!,
      policyId: h.policyId!,
      tool: h.tool!,
      args: JSON.parse(h.args ?? '{}') as Record<string, unknown>,
      subjectId: h.subjectId!,
      status: h.status as ApprovalRecord['status'],
      ...(h.approver ? { approver: h.approver } : {}),
      createdAt: new Date(Number(h.createdAt)).toISOString(),
      expiresAt: new Date(Number(h.expiresAt)).toISOString(),
    };
  }

  async approve(token: string, approver: string, options: { tenant?: string } = {}): Promise<ApproveResult> {
    assertApprover(approver);
    return (await APPROVE.run(this.redis, [this.key(token)], [this.now(), approver, options.tenant ?? ''])) as ApproveResult;
  }

  async consume(token: string, call: ApprovalCall): Promise<ConsumeResult> {
    return this.redeem(token, call, true);
  }

  async peek(token: string, call: ApprovalCall): Promise<ConsumeResult> {
    return this.redeem(token, call, false);
  }

  private async redeem(token: string, call: ApprovalCall, use: boolean): Promise<ConsumeResult> {
    return (await CONSUME.run(
      this.redis,
      [this.key(token)],
      [this.now(), toolCallHash(call.tool, call.args), call.subjectId, call.tenant ?? '', call.policyId ?? '', use ? '1' : '0', call.callId ?? ''],
    )) as ConsumeResult;
  }
}
