/** What a pending call is bound to. The token approves exactly this tool with exactly these args. */
export interface ApprovalRequest {
  tenant: string;
  policyId: string;
  tool: string;
  args: Record<string, unknown>;
  subjectId: string;
  ttlSeconds: number;
  /** Why the call is held (the approval rules' messages), for the approver. */
  reasons?: string[];
  /** The approval rules that held it (`tools.<tool>.approval.<id>`). */
  rules?: string[];
  /** The guard job (decision id) that held the call. */
  callId?: string;
}

export interface ApprovalTicket {
  /** The approval store keeps only its sha256 (it is returned to the caller in the pending decision). */
  token: string;
  /** The token's sha256 (hex): names the held call in lists, webhooks and the approval routes, and cannot be presented as the token. */
  id: string;
  /** ISO time after which the token is refused. */
  expiresAt: string;
}

/** `expired`: still pending (or approved, unused) when its expiry passed; a status read, never stored. */
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'used' | 'expired';

/** The call a token was issued for, for an approver to read before approving. */
export interface ApprovalRecord {
  /** The token's sha256 (see ApprovalTicket.id). */
  id: string;
  tenant: string;
  policyId: string;
  tool: string;
  args: Record<string, unknown>;
  subjectId: string;
  status: ApprovalStatus;
  /** Why the call was held, and by which rules (empty for records made before they were kept). */
  reasons: string[];
  rules: string[];
  /** The decision that held the call, when known. */
  decisionId?: string;
  /** Who approved or rejected it, and why. */
  approver?: string;
  reason?: string;
  decidedAt?: string;
  createdAt: string;
  expiresAt: string;
}

/** `self-approval`: the approver is the subject the call is made for; someone else must approve. `rejected`: a person refused it already. */
export type ApproveResult = 'approved' | 'already-approved' | 'rejected' | 'used' | 'expired' | 'unknown' | 'self-approval';
/** A call may be rejected while pending or approved but not used; a used or expired one is over. */
export type RejectResult = 'rejected' | 'already-rejected' | 'used' | 'expired' | 'unknown';
export type ConsumeResult = 'allowed' | 'not-approved' | 'rejected' | 'expired' | 'mismatch' | 'used' | 'unknown';

/** The call presented with a token on the retried job. */
export interface ApprovalCall {
  tool: string;
  args: Record<string, unknown>;
  subjectId: string;
  /** When given, the token must have been issued for this tenant / policy (else 'unknown' / 'mismatch'). */
  tenant?: string;
  policyId?: string;
  /** The guard job's id: the job that used the token gets 'allowed' again if it is re-run. */
  callId?: string;
}

/** Who decides, and why (kept with the record; the reason of a rejection reaches the model). */
export interface DecideOptions {
  /** The record must be this tenant's (else 'unknown'). */
  tenant?: string;
  reason?: string;
}

/**
 * Single-use approval tokens. `consume` must be atomic: of two concurrent consumers of one
 * approved token, exactly one gets 'allowed'. `get`, `approve` and `reject` take the token or its
 * id (ApprovalTicket.id); `consume` and `peek` only the token.
 */
export interface ApprovalStore {
  create(request: ApprovalRequest): Promise<ApprovalTicket>;
  get(tokenOrId: string, options?: { tenant?: string }): Promise<ApprovalRecord | null>;
  approve(tokenOrId: string, approver: string, options?: DecideOptions): Promise<ApproveResult>;
  reject(tokenOrId: string, approver: string, options?: DecideOptions): Promise<RejectResult>;
  consume(token: string, call: ApprovalCall): Promise<ConsumeResult>;
  /** What `consume` would answer now, without using the token (lets the caller check other limits first). */
  peek(token: string, call: ApprovalCall): Promise<ConsumeResult>;
}
