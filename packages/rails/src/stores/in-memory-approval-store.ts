import { toolCallHash } from '../canonical-json';
import type {
  ApprovalCall,
  ApprovalRecord,
  ApprovalRequest,
  ApprovalStore,
  ApprovalTicket,
  ApproveResult,
  ConsumeResult,
  DecideOptions,
  RejectResult,
} from './approval-store';
import { approvalIdOf, approvalTokenHash, newApprovalToken } from './approval-token';
import { assertApprover, assertDecisionReason } from './approver';

interface Entry {
  /** The job that used the token, if it was used. */
  usedBy?: string;
  record: ApprovalRecord;
  callHash: string;
  expiresAtMs: number;
}

/** Single-process approval store with the same rules as RedisApprovalStore (tests, CLI, benchmarks). */
export class InMemoryApprovalStore implements ApprovalStore {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
  }

  async create(request: ApprovalRequest): Promise<ApprovalTicket> {
    const token = newApprovalToken();
    const id = approvalTokenHash(token);
    const now = this.now();
    const expiresAtMs = now + request.ttlSeconds * 1000;
    const expiresAt = new Date(expiresAtMs).toISOString();
    this.entries.set(id, {
      callHash: toolCallHash(request.tool, request.args),
      expiresAtMs,
      record: {
        id,
        tenant: request.tenant,
        policyId: request.policyId,
        tool: request.tool,
        args: structuredClone(request.args),
        subjectId: request.subjectId,
        status: 'pending',
        reasons: [...(request.reasons ?? [])],
        rules: [...(request.rules ?? [])],
        ...(request.callId ? { decisionId: request.callId } : {}),
        createdAt: new Date(now).toISOString(),
        expiresAt,
      },
    });
    return { token, id, expiresAt };
  }

  private find(tokenOrId: string, tenant?: string): Entry | undefined {
    const id = approvalIdOf(tokenOrId);
    const entry = id === null ? undefined : this.entries.get(id);
    if (!entry || (tenant !== undefined && entry.record.tenant !== tenant)) return undefined;
    return entry;
  }

  async get(tokenOrId: string, options: { tenant?: string } = {}): Promise<ApprovalRecord | null> {
    const entry = this.find(tokenOrId, options.tenant);
    if (!entry) return null;
    const record = structuredClone(entry.record);
    if ((record.status === 'pending' || record.status === 'approved') && entry.expiresAtMs <= this.now()) record.status = 'expired';
    return record;
  }

  async approve(tokenOrId: string, approver: string, options: DecideOptions = {}): Promise<ApproveResult> {
    assertApprover(approver);
    assertDecisionReason(options.reason);
    const entry = this.find(tokenOrId, options.tenant);
    if (!entry) return 'unknown';
    if (entry.record.status === 'used') return 'used';
    if (entry.record.status === 'rejected') return 'rejected';
    if (entry.expiresAtMs <= this.now()) return 'expired';
    if (approver === entry.record.subjectId) return 'self-approval';
    if (entry.record.status === 'approved') return 'already-approved';
    this.decide(entry, 'approved', approver, options.reason);
    return 'approved';
  }

  async reject(tokenOrId: string, approver: string, options: DecideOptions = {}): Promise<RejectResult> {
    assertApprover(approver);
    assertDecisionReason(options.reason);
    const entry = this.find(tokenOrId, options.tenant);
    if (!entry) return 'unknown';
    if (entry.record.status === 'used') return 'used';
    if (entry.record.status === 'rejected') return 'already-rejected';
    if (entry.expiresAtMs <= this.now()) return 'expired';
    this.decide(entry, 'rejected', approver, options.reason);
    return 'rejected';
  }

  private decide(entry: Entry, status: 'approved' | 'rejected', approver: string, reason: string | undefined): void {
    entry.record.status = status;
    entry.record.approver = approver;
    entry.record.decidedAt = new Date(this.now()).toISOString();
    if (reason) entry.record.reason = reason;
  }

  async consume(token: string, call: ApprovalCall): Promise<ConsumeResult> {
    return this.redeem(token, call, true);
  }

  async peek(token: string, call: ApprovalCall): Promise<ConsumeResult> {
    return this.redeem(token, call, false);
  }

  private redeem(token: string, call: ApprovalCall, use: boolean): ConsumeResult {
    const entry = this.entries.get(approvalTokenHash(token));
    if (!entry || (call.tenant !== undefined && entry.record.tenant !== call.tenant)) return 'unknown';
    if (entry.record.status === 'used') {
      const sameJob = call.callId !== undefined && entry.usedBy === call.callId && entry.callHash === toolCallHash(call.tool, call.args);
      return sameJob ? 'allowed' : 'used';
    }
    if (entry.expiresAtMs <= this.now()) return 'expired';
    const sameCall =
      entry.callHash === toolCallHash(call.tool, call.args) &&
      entry.record.subjectId === call.subjectId &&
      (call.policyId === undefined || entry.record.policyId === call.policyId);
    if (!sameCall) return 'mismatch';
    if (entry.record.status === 'rejected') return 'rejected';
    if (entry.record.status !== 'approved') return 'not-approved';
    if (use) {
      entry.record.status = 'used';
      entry.usedBy = call.callId;
    }
    return 'allowed';
  }
}
