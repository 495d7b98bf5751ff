// What a client of the approvals loop shares with the rails, and nothing else: the deny reasons it
// recognises, how a token and a tool call are hashed, the record it reads. Its own entry point
// (`@guardagent/rails/approval-contract`) so that the HTTP SDK (@guardagent/client) bundles these few
// lines and not the rails' engine and Redis stores.
export { approvalTokenHash } from './stores/approval-token';
export { toolCallHash } from './canonical-json';
export type { ApprovalRecord } from './stores/approval-store';

/** The reason of a deny for a token that exists but is not approved yet (callers may keep the token). */
export const NOT_YET_APPROVED_REASON = 'the approval token has not been approved yet';

/** The start of the reason of a deny for a token a person rejected (the rest names who and why). */
export const REJECTED_REASON = 'the approval was rejected';
