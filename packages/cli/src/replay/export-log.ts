import { ConfigError, ValidationError } from '@guardagent/errors';
import { loadConfig } from '@guardagent/config';
import { DecisionLog, createRedisConnection, settleShardLayout, waitUntilReady } from '@guardagent/queue';
import { parseSince } from '@guardagent/schemas';

export interface LogExportOptions {
  tenant: string;
  policyId?: string;
  since?: string;
  until?: string;
  /** Which command asks, for error messages. */
  command: string;
}

/** `--since`/`--until` as ms since the epoch, or a ValidationError naming the option. */
function timeOption(command: string, name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const at = parseSince(value, Date.now());
  if (at === null) throw new ValidationError(command, [{ path: name, message: `'${value}' is neither a duration (30m, 24h, 7d) nor an ISO date` }]);
  return at;
}

/**
 * Stream the recorded decisions of the deployment on REDIS_URL (`write` is awaited per line, so a
 * log of any size streams without piling up in memory). Resolves to how many were written.
 */
export async function exportLog(options: LogExportOptions, write: (line: string) => Promise<void>): Promise<number> {
  const config = loadConfig();
  if (!config.redisUrl) throw new ConfigError(`${options.command} needs REDIS_URL: the log lives in the Redis the workers use`);
  const query = {
    ...(options.policyId ? { policyId: options.policyId } : {}),
    ...(options.since ? { sinceMs: timeOption(options.command, '--since', options.since) } : {}),
    ...(options.until ? { untilMs: timeOption(options.command, '--until', options.until) } : {}),
  };
  const redis = createRedisConnection(config.redisUrl, 'producer', 'cli-log');
  try {
    await waitUntilReady(redis);
    let count = 0;
    // The tenant's log is in its shard (GUARDAGENT_SHARDS, as the deployment recorded it).
    const prefix = (await settleShardLayout(redis, config.prefix, config.shards)).prefixOf(options.tenant);
    for await (const entry of new DecisionLog(redis, prefix).entries(options.tenant, query)) {
      await write(`${JSON.stringify(entry)}\n`);
      count++;
    }
    return count;
  } finally {
    redis.disconnect();
  }
}
