export { startRedisServer, type LocalRedis, type StartRedisOptions } from './start-redis-server';
export { startRedisCluster, type LocalRedisCluster, type StartRedisClusterOptions } from './start-redis-cluster';
export { RedisServerMissingError } from './redis-server-missing-error';
export { freePort } from './free-port';
