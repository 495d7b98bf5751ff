/** Socket error codes that mean "the connection to Redis is gone", not "the command was wrong". */
const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * ioredis's own connection failures. `AbortError` (a command sent, then the connection closed
 * before its reply: it may or may not have run) and its subclass `MaxRetriesPerRequestError` are
 * classes with a name. Two are plain `Error`s whose message is all there is to go on: a command
 * issued on a closed connection, or while offline with the offline queue off; neither was sent.
 */
const IOREDIS_ERROR_NAMES = new Set(['AbortError', 'MaxRetriesPerRequestError', 'RedisNotReadyError']);
const IOREDIS_PLAIN_MESSAGES = ['Connection is closed.', "Stream isn't writeable"];

/** A connection that did not become ready (waitUntilReady): timed out, failed or ended. */
export class RedisNotReadyError extends Error {
  override readonly name = 'RedisNotReadyError';
}

/**
 * Whether `error` says the connection to Redis failed (so the command may not have run, or ran
 * with its reply lost), as opposed to Redis answering the command with an error. Callers retry
 * these only when the command is idempotent.
 */
export function isRedisConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) return true;
  if (IOREDIS_ERROR_NAMES.has(error.name)) return true;
  return IOREDIS_PLAIN_MESSAGES.some((message) => error.message.startsWith(message));
}

/** A socket-level error code alone (what an ioredis `error` event carries during an outage). */
export function isConnectionErrorCode(code: unknown): boolean {
  return typeof code === 'string' && CONNECTION_ERROR_CODES.has(code);
}
