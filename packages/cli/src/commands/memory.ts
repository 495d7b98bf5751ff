import type { Command } from 'commander';
import { ConfigError } from '@guardagent/errors';
import { DemonstrationStore, loadDemonstrationsFile } from '@guardagent/memory';
import { createRedisConnection, settleShardLayout, waitUntilReady } from '@guardagent/queue';
import { loadConfig } from '@guardagent/config';

async function withStore<T>(tenant: string, fn: (store: DemonstrationStore) => Promise<T>): Promise<T> {
  const config = loadConfig();
  if (!config.redisUrl) throw new ConfigError('memory commands need REDIS_URL: the memory lives in the Redis the workers use');
  const redis = createRedisConnection(config.redisUrl, 'producer', 'cli-memory');
  try {
    await waitUntilReady(redis);
    // The tenant's memory is in its shard (GUARDAGENT_SHARDS, as the deployment recorded it).
    const prefix = (await settleShardLayout(redis, config.prefix, config.shards)).prefixOf(tenant);
    return await fn(new DemonstrationStore({ redis, prefix, maxDemonstrations: config.maxDemonstrations }));
  } finally {
    redis.disconnect();
  }
}

export function registerMemory(program: Command): void {
  const memory = program.command('memory').description("a policy's demonstration memory (needs REDIS_URL)");
  memory
    .command('seed')
    .description('add demonstrations (input, output, plan, code) from a JSON file; seeding the same file twice adds nothing')
    .requiredOption('--policy <id>', 'policy id')
    .requiredOption('--file <path>', 'JSON array of demonstrations, or { "demonstrations": [...] }')
    .option('--tenant <id>', 'tenant', 'default')
    .option('--replace', "remove the policy's demonstrations that are not in the file")
    .action(async (options: { policy: string; file: string; tenant: string; replace?: boolean }) => {
      const demos = await loadDemonstrationsFile(options.file);
      const result = await withStore(options.tenant, (store) => store.seed(options.tenant, options.policy, demos, { replace: Boolean(options.replace) }));
      process.stdout.write(`${JSON.stringify(result)}\n`);
    });
  memory
    .command('list')
    .description("print a policy's demonstrations as JSON")
    .requiredOption('--policy <id>', 'policy id')
    .option('--tenant <id>', 'tenant', 'default')
    .action(async (options: { policy: string; tenant: string }) => {
      const demos = await withStore(options.tenant, (store) => store.list(options.tenant, options.policy));
      process.stdout.write(`${JSON.stringify(demos, null, 2)}\n`);
    });
}
