import { ValidationError } from '@guardagent/errors';

/** An approval must name who approved it (audit trail); blank names are refused. */
export function assertApprover(approver: unknown): asserts approver is string {
  if (typeof approver !== 'string' || approver.trim().length === 0 || approver.length > 256) {
    throw new ValidationError('approval', [{ path: 'approver', message: 'a non-empty approver name (at most 256 characters) is required' }]);
  }
}

/** A reason given with an approval or a rejection (optional; a rejection's reaches the model). */
export function assertDecisionReason(reason: unknown): asserts reason is string | undefined {
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > 1000)) {
    throw new ValidationError('approval', [{ path: 'reason', message: 'a reason is a string of at most 1000 characters' }]);
  }
}
