import type { Redis } from 'ioredis';
import { infoField } from './redis-info';

export type RedisSettingCode = 'EVICTION_POLICY' | 'PERSISTENCE_OFF' | 'SETTINGS_UNREADABLE';

export interface RedisSettingWarning {
  code: RedisSettingCode;
  message: string;
}

/**
 * What an operator's Redis is set to that GuardAgent's guarantees depend on (see
 * docs/operations.md): an eviction policy other than `noeviction` drops queued jobs and stored
 * decisions under memory pressure; no persistence at all loses every accepted job on a restart.
 * Reads INFO (allowed on managed Redis) and, when allowed, `CONFIG GET save`.
 */
export async function checkRedisSettings(redis: Redis): Promise<RedisSettingWarning[]> {
  const warnings: RedisSettingWarning[] = [];
  let memory: string;
  let persistence: string;
  try {
    [memory, persistence] = await Promise.all([redis.info('memory'), redis.info('persistence')]);
  } catch (error) {
    return [{ code: 'SETTINGS_UNREADABLE', message: `INFO is not allowed, so the eviction policy and persistence are unchecked: ${(error as Error).message}` }];
  }
  const policy = infoField(memory, 'maxmemory_policy');
  if (policy !== null && policy !== 'noeviction') {
    warnings.push({
      code: 'EVICTION_POLICY',
      message: `maxmemory-policy is ${policy}: under memory pressure Redis deletes queued jobs and stored decisions; set it to noeviction`,
    });
  }
  if (infoField(persistence, 'aof_enabled') === '0') {
    let save: string | null = null;
    try {
      const reply = (await redis.config('GET', 'save')) as string[];
      save = reply[1] ?? '';
    } catch {
      save = null; // CONFIG is often renamed or refused on managed Redis
    }
    if (save === '') {
      warnings.push({
        code: 'PERSISTENCE_OFF',
        message: 'neither AOF nor RDB snapshots are on: a Redis restart loses every queued job and stored decision; see docs/operations.md',
      });
    }
  }
  return warnings;
}
