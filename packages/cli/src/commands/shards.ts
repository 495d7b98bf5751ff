import type { Command } from 'commander';
import { ShardLayout, loadConfig } from '@guardagent/config';
import { STAGES, createRedisConnection, settleShardLayout, waitUntilReady } from '@guardagent/queue';

/** One shard as operators need it: its prefix and the Redis lists its stages' waiting jobs are in. */
function describeShard(prefix: string, index: number) {
  // BullMQ 6.7 keeps a queue's waiting jobs in the list `<prefix>:<queue>:wait` (what KEDA's redis scaler reads).
  return { shard: index, prefix, waitLists: Object.fromEntries(STAGES.map((stage) => [stage, `${prefix}:${stage}:wait`])) };
}

export function registerShards(program: Command): void {
  program
    .command('shards')
    .description("print the deployment's shards (GUARDAGENT_SHARDS): each one's key prefix and stage wait lists, and a tenant's shard")
    .option('--tenant <id>', "also print this tenant's shard")
    .action(async (options: { tenant?: string }) => {
      const config = loadConfig();
      let layout = new ShardLayout(config.prefix, config.shards);
      // With REDIS_URL, the count is checked against the one the deployment recorded (as every process does).
      if (config.redisUrl) {
        const redis = createRedisConnection(config.redisUrl, 'producer', 'cli-shards');
        try {
          await waitUntilReady(redis);
          layout = await settleShardLayout(redis, config.prefix, config.shards);
        } finally {
          redis.disconnect();
        }
      }
      const report = {
        count: layout.count,
        shards: layout.prefixes.map(describeShard),
        ...(options.tenant !== undefined ? { tenant: { id: options.tenant, shard: layout.shardOf(options.tenant) } } : {}),
      };
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    });
}
