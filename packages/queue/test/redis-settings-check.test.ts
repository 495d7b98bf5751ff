import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { startRedisServer } from '@guardagent/local-redis';
import { checkRedisSettings } from '../src/index';

async function codesFor(settings: Record<string, string>): Promise<string[]> {
  const server = await startRedisServer({ settings });
  const redis = new Redis(server.url);
  try {
    return (await checkRedisSettings(redis)).map((warning) => warning.code).sort();
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

describe("checkRedisSettings on real redis-servers", () => {
  it('warns about eviction and about no persistence at all', async () => {
    expect(await codesFor({ 'maxmemory-policy': 'allkeys-lru' })).toEqual(['EVICTION_POLICY', 'PERSISTENCE_OFF']);
  });

  it('is quiet with noeviction and either AOF or RDB snapshots', async () => {
    expect(await codesFor({ appendonly: 'yes' })).toEqual([]);
    expect(await codesFor({ save: '3600 1' })).toEqual([]);
  });

  it('says the settings are unchecked when INFO is refused, and names the policy it read', async () => {
    const server = await startRedisServer({ settings: { 'maxmemory-policy': 'volatile-ttl', appendonly: 'yes' } });
    const admin = new Redis(server.url);
    const limited = new Redis(server.url, { username: 'limited', password: 'limited-password', enableReadyCheck: false, lazyConnect: true });
    try {
      const [eviction] = await checkRedisSettings(admin);
      expect(eviction).toMatchObject({ code: 'EVICTION_POLICY' });
      expect(eviction.message).toContain('volatile-ttl');
      // A user allowed everything but INFO, as some managed Redis hosts set it up.
      await admin.call('ACL', 'SETUSER', 'limited', 'on', '>limited-password', '~*', '+@all', '-info');
      await limited.connect();
      const warnings = await checkRedisSettings(limited);
      expect(warnings.map((w) => w.code)).toEqual(['SETTINGS_UNREADABLE']);
    } finally {
      limited.disconnect();
      admin.disconnect();
      await server.stop();
    }
  });
});
