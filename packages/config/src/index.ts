export { GuardConfigSchema, loadConfig, CONFIG_ENV_NAMES, type GuardConfig } from './guard-config';
export { parseRedisTarget, isRedisTarget, keyPrefixFor, type RedisTarget } from './redis-target';
export { ShardLayout, MAX_SHARDS } from './shard-layout';
