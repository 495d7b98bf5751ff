import { writeFileSync } from 'node:fs';
import { Pipeline, Redis } from 'ioredis';

/**
 * Counts what this process sends to Redis, by patching ioredis (one copy in node_modules, shared
 * by BullMQ): a command sent on its own is one round trip; a pipeline / MULTI is one round trip
 * for all its commands. Blocking reads (BullMQ's BZPOPMIN marker wait) are counted too.
 */
export interface RedisCommandCounts {
  roundTrips: number;
  commands: number;
  byCommand: Record<string, number>;
}

const counts: RedisCommandCounts = { roundTrips: 0, commands: 0, byCommand: {} };
let installed = false;

// biome-ignore-start lint/suspicious/noExplicitAny: wraps ioredis internals (sendCommand's command, Pipeline.exec) that its types do not describe
export function installRedisCommandCounter(): () => RedisCommandCounts {
  if (!installed) {
    installed = true;
    const send = Redis.prototype.sendCommand;
    Redis.prototype.sendCommand = function (this: Redis, command: any, stream?: unknown) {
      counts.commands++;
      // Pipelined commands arrive with the pipeline's stream; they were counted by exec below.
      if (!stream) counts.roundTrips++;
      const name: string = command?.name ?? '?';
      counts.byCommand[name] = (counts.byCommand[name] ?? 0) + 1;
      return send.call(this, command, stream as any);
    } as typeof Redis.prototype.sendCommand;
    const exec = (Pipeline.prototype as any).exec;
    (Pipeline.prototype as any).exec = function (this: unknown, ...args: unknown[]) {
      counts.roundTrips++;
      return exec.apply(this, args);
    };
  }
  return () => ({ roundTrips: counts.roundTrips, commands: counts.commands, byCommand: { ...counts.byCommand } });
}
// biome-ignore-end lint/suspicious/noExplicitAny: see above

/** Difference of two snapshots, per item. */
export function countsPerItem(before: RedisCommandCounts, after: RedisCommandCounts, items: number): RedisCommandCounts {
  const per = (a: number, b: number) => Math.round(((a - b) / items) * 100) / 100;
  const byCommand: Record<string, number> = {};
  for (const [name, value] of Object.entries(after.byCommand)) {
    const delta = per(value, before.byCommand[name] ?? 0);
    if (delta > 0) byCommand[name] = delta;
  }
  return {
    roundTrips: per(after.roundTrips, before.roundTrips),
    commands: per(after.commands, before.commands),
    byCommand: Object.fromEntries(Object.entries(byCommand).sort((x, y) => y[1] - x[1])),
  };
}

/**
 * Preloaded into a child (`--import bench/lib/redis-command-counter.ts` with BENCH_REDIS_COUNT_FILE set):
 * on SIGUSR2 the child writes its counts so far to that file, with a sequence number.
 */
const countFile = process.env.BENCH_REDIS_COUNT_FILE;
if (countFile) {
  const snapshot = installRedisCommandCounter();
  let seq = 0;
  process.on('SIGUSR2', () => {
    writeFileSync(countFile, JSON.stringify({ seq: ++seq, ...snapshot() }));
  });
}
