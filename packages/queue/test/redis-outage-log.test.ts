import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisOutageLog } from '../src/index';

function recorder() {
  const lines: Array<{ level: string; message: string; fields: Record<string, unknown> }> = [];
  return {
    lines,
    logger: {
      warn: (fields: Record<string, unknown>, message: string) => lines.push({ level: 'warn', message, fields }),
      info: (fields: Record<string, unknown>, message: string) => lines.push({ level: 'info', message, fields }),
    },
  };
}
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:6379`), { code });

describe('RedisOutageLog', () => {
  it('logs an outage once however many connections and retries report it, and once when it is back', () => {
    const { lines, logger } = recorder();
    let now = 1000;
    const outage = new RedisOutageLog(logger, () => now);
    const a = new EventEmitter();
    const b = new EventEmitter();
    outage.watch(a as unknown as Redis);
    outage.watch(b as unknown as Redis);
    for (let i = 0; i < 20; i++) {
      a.emit('error', socketError('ECONNREFUSED'));
      b.emit('error', socketError('ECONNRESET'));
    }
    // A queue's error without a socket code, during the outage, is part of it.
    expect(outage.absorb(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(true);
    now = 1600;
    a.emit('ready');
    b.emit('ready');
    expect(lines.map((l) => `${l.level} ${l.message}`)).toEqual(['warn redis connection lost; reconnecting', 'info redis connection back']);
    expect(lines[1].fields).toEqual({ downMs: 600 });
  });

  it('leaves errors that are not about the connection to the caller', () => {
    const { lines, logger } = recorder();
    const outage = new RedisOutageLog(logger);
    expect(outage.absorb(new Error('ERR wrong number of arguments'))).toBe(false);
    expect(outage.absorb(Object.assign(new Error('boom'), { code: 'ERR_SOMETHING' }))).toBe(false);
    expect(outage.absorb('not an error')).toBe(false);
    expect(lines).toEqual([]);
  });

  it('gives connections a listener even with no logger, so nothing is printed as unhandled', () => {
    const outage = new RedisOutageLog(null);
    const connection = new EventEmitter();
    outage.watch(connection as unknown as Redis);
    // emit() returns whether a listener heard it; with none, emitting 'error' would throw.
    expect(connection.listenerCount('error')).toBe(1);
    expect(connection.emit('error', socketError('ECONNREFUSED'))).toBe(true);
  });
});
