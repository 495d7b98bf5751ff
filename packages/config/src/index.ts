export { GuardConfigSchema, loadConfig, CONFIG_ENV_NAMES, DEFAULT_LOCK_DURATION_MS, DEFAULT_STALLED_INTERVAL_MS, type GuardConfig } from './guard-config';
export { ENV_VARIABLES, envName, readEnv, type EnvKey, type EnvReader, type EnvVariable } from './env-variables';
export { parseRedisTarget, isRedisTarget, keyPrefixFor, type RedisTarget } from './redis-target';
export { ShardLayout, MAX_SHARDS } from './shard-layout';
