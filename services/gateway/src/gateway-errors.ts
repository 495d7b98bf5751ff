import { GuardAgentError } from '@guardagent/errors';

/** The request body (or a batch) is larger than the gateway accepts (or a quota can ever take). */
export { PayloadTooLargeError } from '@guardagent/errors';

/** The request conflicts with what exists (a tenant id already taken). */
export { ConflictError } from '@guardagent/errors';

/** An authenticated caller asked for something only the admin key may do. */
export class ForbiddenError extends GuardAgentError {
  readonly code = 'FORBIDDEN';
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(message, details);
  }
}

/** Feedback on a decision that memory cannot learn from (no archived per-request case). */
export class FeedbackNotApplicableError extends GuardAgentError {
  readonly code = 'FEEDBACK_NOT_APPLICABLE';
  constructor(checkId: string, reason: string) {
    super(`Feedback for check '${checkId}' cannot be recorded: ${reason}`, { id: checkId });
  }
}

/** The request's content type is not one this endpoint reads. */
export class UnsupportedMediaTypeError extends GuardAgentError {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
  constructor(contentType: string, accepted: readonly string[]) {
    super(`Content-Type '${contentType}' is not supported here; send ${accepted.join(' or ')}`, { accepted });
  }
}

/**
 * The request body did not arrive in time (see GatewayLimits.bodyTimeoutMs): 408, and the
 * connection is closed. `statusCode` is what Fastify's body reader answers with.
 */
export class RequestTimeoutError extends GuardAgentError {
  readonly code = 'REQUEST_TIMEOUT';
  readonly statusCode = 408;
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(message, details);
  }
}
