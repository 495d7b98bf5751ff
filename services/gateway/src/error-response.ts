import { GuardAgentError, ValidationError, errorMessage, type FieldIssue } from '@guardagent/errors';
import { isRedisOutOfMemory, redisTransientKind } from '@guardagent/queue';

export interface ErrorBody {
  error: { code: string; message: string; issues?: FieldIssue[]; details?: Record<string, unknown> };
}

/** Retry-After of a 503 that gives none of its own: Redis reconnects or a replica is promoted in about that. */
const RETRY_AFTER_UNAVAILABLE_S = 1;

/** Status code of each typed error; anything not listed is a 500. */
const STATUS_BY_CODE: Record<string, number> = {
  VALIDATION_FAILED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  SCOPE_REQUIRED: 403,
  NOT_FOUND: 404,
  DECISION_LOST: 404,
  CONFLICT: 409,
  IDEMPOTENCY_CONFLICT: 409,
  FEEDBACK_NOT_APPLICABLE: 409,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  QUOTA_EXCEEDED: 429,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VERIFICATION_FAILED: 422,
  NO_COMPILED_PROGRAM: 422,
  LLM_NOT_CONFIGURED: 422,
  CHECK_TIMEOUT: 504,
  UNAVAILABLE: 503,
  STORE_FULL: 503,
  LLM_REQUEST_FAILED: 502,
  LLM_REPLY_UNUSABLE: 502,
};

/** Fastify's own errors (body parsing, limits, routing) as our codes. */
const FASTIFY_ERRORS: Record<string, { status: number; code: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'PAYLOAD_TOO_LARGE' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'VALIDATION_FAILED' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'VALIDATION_FAILED' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'VALIDATION_FAILED' },
  // The router's: a malformed %-escape in the path, a path parameter longer than any id (100 characters).
  FST_ERR_BAD_URL: { status: 400, code: 'VALIDATION_FAILED' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 400, code: 'VALIDATION_FAILED' },
};

/**
 * Every error a route can raise, as one status code and one body shape. Messages of unexpected
 * errors are not sent (they can carry internals); their code is INTERNAL_ERROR.
 */
export function errorResponse(error: unknown): { status: number; body: ErrorBody; unexpected: boolean } {
  if (error instanceof ValidationError) {
    return { status: 400, body: { error: { code: error.code, message: error.message, issues: error.issues } }, unexpected: false };
  }
  if (error instanceof GuardAgentError) {
    const status = STATUS_BY_CODE[error.code] ?? 500;
    // Every 503 says when to try again (the Retry-After header comes from retryAfterSeconds).
    const extra = status === 503 && typeof error.details.retryAfterSeconds !== 'number' ? { retryAfterSeconds: RETRY_AFTER_UNAVAILABLE_S } : {};
    // A Redis failure under it (a script's UnavailableError): which kind, as for a bare one below.
    const transient = status === 503 ? redisTransientKind(error) : null;
    const all = { ...error.details, ...extra, ...(transient ? { redis: transient } : {}) };
    const details = Object.keys(all).length ? { details: all } : {};
    return { status, body: { error: { code: error.code, message: error.message, ...details } }, unexpected: status === 500 };
  }
  const fastifyCode = (error as { code?: unknown })?.code;
  const statusCode = (error as { statusCode?: unknown })?.statusCode;
  if (typeof fastifyCode === 'string' && FASTIFY_ERRORS[fastifyCode]) {
    const mapped = FASTIFY_ERRORS[fastifyCode];
    const message = errorMessage(error);
    const issues = mapped.code === 'VALIDATION_FAILED' ? { issues: [{ path: '', message }] } : {};
    return { status: mapped.status, body: { error: { code: mapped.code, message, ...issues } }, unexpected: false };
  }
  // Malformed JSON (secure-json-parse raises a SyntaxError with statusCode 400) and prototype poisoning.
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    const message = errorMessage(error);
    const code = statusCode === 413 ? 'PAYLOAD_TOO_LARGE' : statusCode === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'VALIDATION_FAILED';
    const issues = code === 'VALIDATION_FAILED' ? { issues: [{ path: '', message: `body: ${message}` }] } : {};
    return { status: statusCode === 413 || statusCode === 415 ? statusCode : 400, body: { error: { code, message, ...issues } }, unexpected: false };
  }
  // Any write Redis refused at maxmemory (a quota script, a key binding): the same answer as the
  // up-front refusal, rather than a 500.
  if (isRedisOutOfMemory(error)) {
    const message = 'Redis is at its maxmemory: nothing was queued; retry later';
    return { status: 503, body: { error: { code: 'STORE_FULL', message, details: { retryAfterSeconds: 1 } } }, unexpected: false };
  }
  // A lost connection, or a Redis Cluster failing over (redisTransientKind): the same command a
  // moment later will run. The HTTP SDK retries these, as it does a broken connection.
  const transient = redisTransientKind(error);
  if (transient) {
    const message = transient === 'failover' ? 'Redis is failing over (a cluster slot is moving or has no primary yet); retry shortly' : 'Redis is unavailable; retry later';
    return { status: 503, body: { error: { code: 'UNAVAILABLE', message, details: { redis: transient, retryAfterSeconds: RETRY_AFTER_UNAVAILABLE_S } } }, unexpected: true };
  }
  return { status: 500, body: { error: { code: 'INTERNAL_ERROR', message: 'Internal error' } }, unexpected: true };
}
