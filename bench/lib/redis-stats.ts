import type { Redis } from 'ioredis';
import { parseMemoryInfo } from '@guardagent/queue';

/** redis-server's pid and version (from INFO), for the CPU split and the machine block. */
export async function redisServerInfo(redis: Redis): Promise<{ pid: number; version: string }> {
  const info = await redis.info('server');
  const field = (name: string) => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim() ?? '';
  return { pid: Number(field('process_id')), version: field('redis_version') };
}

export interface CommandStat {
  calls: number;
  /** Server time spent in the command, µs (inside Lua scripts too). */
  usec: number;
}

/** Calls and server time per command name since the server started (INFO commandstats). */
export async function commandCalls(redis: Redis): Promise<Map<string, CommandStat>> {
  const info = await redis.info('commandstats');
  const calls = new Map<string, CommandStat>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) calls.set(match[1], { calls: Number(match[2]), usec: Number(match[3]) });
  return calls;
}

export interface ServerCommandsPerItem {
  /** Commands executed per item, including those run inside Lua scripts. */
  total: number;
  byCommand: Record<string, number>;
  /** Server µs per item by command (a script's time includes the commands it runs). */
  usByCommand: Record<string, number>;
}

/** Commands and server time per item between two commandstats snapshots, the busiest first (INFO itself excluded). */
export function commandsPerItem(before: Map<string, CommandStat>, after: Map<string, CommandStat>, items: number): ServerCommandsPerItem {
  const byCommand: Record<string, number> = {};
  const usByCommand: Record<string, number> = {};
  let total = 0;
  for (const [name, stat] of after) {
    if (name === 'info') continue;
    const delta = stat.calls - (before.get(name)?.calls ?? 0);
    if (delta <= 0) continue;
    total += delta;
    byCommand[name] = Math.round((delta / items) * 100) / 100;
    const us = (stat.usec - (before.get(name)?.usec ?? 0)) / items;
    if (us >= 0.5) usByCommand[name] = Math.round(us * 10) / 10;
  }
  const sorted = (r: Record<string, number>) => Object.fromEntries(Object.entries(r).sort((a, b) => b[1] - a[1]));
  return { total: Math.round((total / items) * 100) / 100, byCommand: sorted(byCommand), usByCommand: sorted(usByCommand) };
}

/** Bytes redis-server holds for data (INFO memory used_memory). */
export async function usedMemoryBytes(redis: Redis): Promise<number> {
  return parseMemoryInfo(await redis.info('memory')).usedBytes;
}

/** Mean MEMORY USAGE of up to `sample` keys matching `pattern` (SCAN), bytes; NaN when none match. */
export async function meanKeyBytes(redis: Redis, pattern: string, sample = 50): Promise<number> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    found.push(...batch);
  } while (cursor !== '0' && found.length < sample);
  const keys = found.slice(0, sample);
  if (keys.length === 0) return Number.NaN;
  const sizes = await Promise.all(keys.map(async (key) => Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'))));
  return Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length);
}
