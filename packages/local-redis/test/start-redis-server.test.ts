import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { startRedisServer, RedisServerMissingError } from '../src/index';
import { answersWithPassword, ping } from './ping';


describe('startRedisServer', () => {
  it('starts a private server on a free port and stops it', async () => {
    const redis = await startRedisServer();
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
    expect(await ping(redis.port)).toBe('+PONG');
    await redis.stop();
    await expect(ping(redis.port)).rejects.toThrow();
  });

  it('a server whose owner was killed with SIGKILL goes too (no exit handler ran)', async () => {
    // The server is told apart by a password: once it is gone, another test's server may take
    // its port, and a bare PING would then read that one as still up (or, on an HTTP server,
    // wait for an answer that never comes).
    const password = randomUUID();
    const owner = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./fixtures/own-redis.ts', import.meta.url)), password], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [line] = (await once(owner.stdout!.setEncoding('utf8'), 'data')) as [string];
    const port = Number(line.trim());
    expect(await answersWithPassword(port, password)).toBe(true);
    owner.kill('SIGKILL');
    await once(owner, 'exit');
    // The server stops within moments; wait for that condition (bounded), then assert it.
    const deadline = Date.now() + 10_000;
    let stillUp = true;
    while (stillUp && Date.now() < deadline) {
      stillUp = await answersWithPassword(port, password, 500);
      if (stillUp) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(stillUp).toBe(false);
  });

  it('reports a server that exits at start, with its message', async () => {
    const error = await startRedisServer({ settings: { 'maxmemory-policy': 'not-a-policy' } }).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String(error.message)).toMatch(/redis-server exited at start: .*maxmemory-policy/is);
  });

  it('says how to install redis-server when the binary is missing', async () => {
    const error = await startRedisServer({ binary: 'redis-server-that-does-not-exist' }).catch((e) => e);
    expect(error).toBeInstanceOf(RedisServerMissingError);
    expect(error.code).toBe('REDIS_SERVER_MISSING');
    expect(error.message).toMatch(/apt-get install -y redis-server/);
  });
});
