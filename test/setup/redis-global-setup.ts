import type { TestProject } from 'vitest/node';
import type { LocalRedis } from '../../packages/local-redis/src/index';

import '../../packages/testing/src/provided-context';

let redis: LocalRedis | undefined;

/** One private redis-server for the whole run; each test file isolates itself by key prefix. */
export async function setup(project: TestProject): Promise<void> {
  // Imported here, not at the top: build-global-setup.ts builds the workspace packages first, and
  // vitest imports every global setup file before it runs any.
  const { startRedisServer } = await import('../../packages/local-redis/src/index');
  redis = await startRedisServer();
  project.provide('redisUrl', redis.url);
  process.env.GUARDAGENT_TEST_REDIS_URL = redis.url;
}

export async function teardown(): Promise<void> {
  await redis?.stop();
}
