import type { ApprovalRecord } from '@guardagent/rails/approval-contract';

/** A held tool call as GuardAgent shows it (never its token): GET /v1/approvals and /v1/approvals/{ref}. */
export interface ApprovalView {
  /** The token's sha256: names the call in URLs, lists and webhooks; it is not the token. */
  id: string;
  status: 'pending' | 'approved' | 'rejected' | 'used' | 'expired';
  tenant: string;
  policy: string;
  tool: string;
  args: Record<string, unknown>;
  subject: string;
  /** Why the call was held, and by which rules. */
  reasons: string[];
  rules: string[];
  decisionId?: string;
  /** Who approved or rejected it, and why. */
  approver?: string;
  reason?: string;
  decidedAt?: string;
  createdAt: string;
  expiresAt: string;
  /** 0 once expired: then it can be neither approved nor run. */
  expiresInSeconds: number;
}

/** A stored approval record as the API shows it. */
export function approvalViewOf(record: ApprovalRecord, now: number): ApprovalView {
  return {
    id: record.id,
    status: record.status,
    tenant: record.tenant,
    policy: record.policyId,
    tool: record.tool,
    args: record.args,
    subject: record.subjectId,
    reasons: record.reasons,
    rules: record.rules,
    ...(record.decisionId ? { decisionId: record.decisionId } : {}),
    ...(record.approver ? { approver: record.approver } : {}),
    ...(record.reason ? { reason: record.reason } : {}),
    ...(record.decidedAt ? { decidedAt: record.decidedAt } : {}),
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    expiresInSeconds: Math.max(0, Math.floor((Date.parse(record.expiresAt) - now) / 1000)),
  };
}

/** Reads a held call's status: both transports (by token with any key; by id with `operate`). */
export interface ApprovalReader {
  approval(tokenOrId: string): Promise<ApprovalView | null>;
}

/** Approves and rejects held calls: a transport with an `operate` key (HTTP) or on the deployment's Redis (queues). */
export interface ApprovalDecider {
  approve(tokenOrId: string, approver: string, options?: { reason?: string }): Promise<string>;
  reject(tokenOrId: string, approver: string, options?: { reason?: string }): Promise<string>;
}
