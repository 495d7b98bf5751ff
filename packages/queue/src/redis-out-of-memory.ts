/**
 * Whether Redis refused a command because it is at `maxmemory` (policy `noeviction`). A RESP
 * error reply starts with its error code; ioredis keeps the reply as the message, so the code is
 * the message's first word ("OOM command not allowed when used memory > 'maxmemory'.").
 */
export function isRedisOutOfMemory(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError' && error.message.startsWith('OOM ');
}
