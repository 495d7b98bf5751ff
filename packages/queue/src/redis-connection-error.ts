/** Socket error codes that mean "the connection to Redis is gone", not "the command was wrong". */
const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * ioredis's own connection failures. `AbortError` (a command sent, then the connection closed
 * before its reply: it may or may not have run) and its subclass `MaxRetriesPerRequestError` are
 * classes with a name. Two are plain `Error`s whose message is all there is to go on: a command
 * issued on a closed connection, or while offline with the offline queue off; neither was sent.
 * Its Cluster adds two more of those: a command issued while the cluster client reconnects (offline
 * queue off), and one issued when no seed node answered.
 */
const IOREDIS_ERROR_NAMES = new Set(['AbortError', 'MaxRetriesPerRequestError', 'RedisNotReadyError']);
const IOREDIS_PLAIN_MESSAGES = ['Connection is closed.', "Stream isn't writeable", "Cluster isn't ready", 'None of startup nodes is available'];

/**
 * Replies of a Redis Cluster (or a server) in the middle of a topology change: the slot moved or
 * is moving (`MOVED`, `ASK`, `TRYAGAIN`), the cluster has no primary for it (`CLUSTERDOWN`), the
 * node is a replica now or still loading its data after a restart (`READONLY`, `LOADING`,
 * `MASTERDOWN`). The command did not run; the same command a moment later will. A RESP error reply
 * starts with its code, and ioredis keeps the reply as the message of a `ReplyError`, so the code
 * is the message's first word: that is Redis's own typed part of the reply.
 */
const FAILOVER_REPLY_CODES = new Set(['MOVED', 'ASK', 'TRYAGAIN', 'CLUSTERDOWN', 'READONLY', 'LOADING', 'MASTERDOWN']);

/**
 * ioredis's Cluster gives up on a command after `maxRedirections` redirections or cluster-down
 * replies with a plain `Error` whose message is all there is ("Too many Cluster redirections.
 * Last error: …"); `ClusterAllFailedError` (no node answered a slot refresh) has a name.
 */
const FAILOVER_ERROR_NAMES = new Set(['ClusterAllFailedError']);
const FAILOVER_PLAIN_MESSAGES = ['Too many Cluster redirections.'];

/** A connection that did not become ready (waitUntilReady): timed out, failed or ended. */
export class RedisNotReadyError extends Error {
  override readonly name = 'RedisNotReadyError';
}

/**
 * What kind of passing Redis failure `error` is, if any:
 * - `connection`: the connection failed (the command may not have run, or ran with its reply lost);
 * - `failover`: a Redis Cluster moved a slot or promoted a replica under the command, which did not
 *   run (see FAILOVER_REPLY_CODES).
 * null for anything else (Redis answered the command with an error, or not a Redis error at all).
 * Both kinds are worth the same command again shortly; callers retry only idempotent commands.
 * Looks through `cause` (a GuardAgent error wrapping the Redis one) and a failed MULTI's
 * `previousErrors`. The one place GuardAgent reads Redis failures; its test uses real ones.
 */
export function redisTransientKind(error: unknown, depth = 0): 'connection' | 'failover' | null {
  if (!(error instanceof Error) || depth > 4) return null;
  if (isConnectionFailure(error)) return 'connection';
  if (isFailover(error)) return 'failover';
  // EXECABORT: a MULTI refused as a whole because a command queued in it was; judged by those.
  const previous = (error as { previousErrors?: unknown }).previousErrors;
  if (replyCode(error) === 'EXECABORT' && Array.isArray(previous)) {
    const kinds = previous.map((inner) => redisTransientKind(inner, depth + 1));
    if (kinds.length > 0 && kinds.every((kind) => kind !== null)) return kinds.includes('connection') ? 'connection' : 'failover';
  }
  return redisTransientKind(error.cause, depth + 1);
}

/** Whether `error` is a passing Redis failure of either kind (see redisTransientKind). */
export function isRedisTransientError(error: unknown): boolean {
  return redisTransientKind(error) !== null;
}

/**
 * Whether `error` says the connection to Redis failed (so the command may not have run, or ran
 * with its reply lost), as opposed to Redis answering the command with an error. Callers retry
 * these only when the command is idempotent.
 */
export function isRedisConnectionError(error: unknown): boolean {
  return error instanceof Error && isConnectionFailure(error);
}

/** A socket-level error code alone (what an ioredis `error` event carries during an outage). */
export function isConnectionErrorCode(code: unknown): boolean {
  return typeof code === 'string' && CONNECTION_ERROR_CODES.has(code);
}

function isConnectionFailure(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) return true;
  if (IOREDIS_ERROR_NAMES.has(error.name)) return true;
  return IOREDIS_PLAIN_MESSAGES.some((message) => error.message.startsWith(message));
}

function isFailover(error: Error): boolean {
  if (FAILOVER_ERROR_NAMES.has(error.name)) return true;
  const code = replyCode(error);
  if (code !== null && FAILOVER_REPLY_CODES.has(code)) return true;
  return error.name === 'Error' && FAILOVER_PLAIN_MESSAGES.some((message) => error.message.startsWith(message));
}

/** The error code of a Redis error reply (its first word), or null for any other error. */
function replyCode(error: Error): string | null {
  if (error.name !== 'ReplyError') return null;
  const space = error.message.indexOf(' ');
  return space === -1 ? error.message : error.message.slice(0, space);
}
