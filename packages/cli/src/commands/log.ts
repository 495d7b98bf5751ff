import type { Command } from 'commander';
import { loadConfig } from '@guardagent/config';
import { ConfigError, ValidationError } from '@guardagent/errors';
import { DecisionLog, createRedisConnection, waitUntilReady } from '@guardagent/queue';
import { parseSince } from '@guardagent/schemas';

/** `--since`/`--until` as ms since the epoch, or a ValidationError naming the option. */
function timeOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const at = parseSince(value, Date.now());
  if (at === null) throw new ValidationError('log export', [{ path: name, message: `'${value}' is neither a duration (30m, 24h, 7d) nor an ISO date` }]);
  return at;
}

export function registerLog(program: Command): void {
  const log = program.command('log').description('the decision log: decisions recorded with their jobs (needs REDIS_URL)');
  log
    .command('export')
    .description('print recorded decisions as JSON lines, oldest first (a replay or batch input)')
    .option('--policy <id>', "only this policy's decisions")
    .option('--since <when>', 'from this time: a duration back (30m, 24h, 7d) or an ISO date')
    .option('--until <when>', 'before this time: a duration back or an ISO date')
    .option('--tenant <id>', 'tenant', 'default')
    .action(async (options: { policy?: string; since?: string; until?: string; tenant: string }) => {
      const config = loadConfig();
      if (!config.redisUrl) throw new ConfigError('log export needs REDIS_URL: the log lives in the Redis the workers use');
      const query = {
        ...(options.policy ? { policyId: options.policy } : {}),
        ...(options.since ? { sinceMs: timeOption('--since', options.since) } : {}),
        ...(options.until ? { untilMs: timeOption('--until', options.until) } : {}),
      };
      const redis = createRedisConnection(config.redisUrl, 'producer', 'cli-log');
      try {
        await waitUntilReady(redis);
        let count = 0;
        for await (const entry of new DecisionLog(redis, config.prefix).entries(options.tenant, query)) {
          // Backpressure: a log of any size streams out without piling up in memory.
          if (!process.stdout.write(`${JSON.stringify(entry)}\n`)) await new Promise<void>((resolve) => process.stdout.once('drain', () => resolve()));
          count++;
        }
        process.stderr.write(`exported ${count} decisions\n`);
      } finally {
        redis.disconnect();
      }
    });
}
