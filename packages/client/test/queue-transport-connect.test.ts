import { describe, expect, it, vi } from 'vitest';
import { connect, createServer } from 'node:net';
import { once } from 'node:events';
import { UnavailableError } from '@guardagent/errors';
import { QueueTransport } from '@guardagent/client/queue';

describe('QueueTransport.connect', () => {
  it('fails fast with UnavailableError and stops reconnecting when Redis does not answer', async () => {
    // A server that accepts and hangs up at once, noting each connection by its client port in the
    // order it took them: every connection attempt shows up here.
    const accepted: number[] = [];
    const server = createServer((socket) => {
      accepted.push(socket.remotePort!);
      socket.destroy();
    });
    // Resolves once the server has taken a connection that makes `seen` true (it looks again at each).
    const until = (seen: () => boolean) =>
      new Promise<void>((resolve) => {
        const look = () => {
          if (!seen()) return;
          server.off('connection', look);
          resolve();
        };
        server.on('connection', look);
        look();
      });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    // ioredis schedules each reconnection with setTimeout: faked, a reconnection can only happen
    // when the test runs the timers, not while a sleep happens to last.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const started = Date.now();
      const error = await QueueTransport.connect({ redisUrl: `redis://127.0.0.1:${port}` }).catch((e) => e);
      expect(error).toBeInstanceOf(UnavailableError);
      expect(error.message).toMatch(/Redis is not reachable/);
      expect(Date.now() - started).toBeLessThan(5000);
      // Both connections (commands and replies) made their one attempt.
      await until(() => accepted.length >= 2);
      // Run every timer ioredis could have set for a reconnection (its back-off tops out at 2 s),
      // then let a connection those timers began reach the server.
      await vi.advanceTimersByTimeAsync(30_000);
      await new Promise((resolve) => setImmediate(resolve));
      // The positive event: a probe connected now is taken after any attempt begun before it.
      const probe = connect(port, '127.0.0.1');
      probe.on('error', () => undefined);
      await once(probe, 'connect');
      const probePort = probe.localPort!;
      await until(() => accepted.includes(probePort));
      probe.destroy();
      // Two attempts, then the probe: nothing reconnected.
      expect(accepted.filter((p) => p !== probePort)).toHaveLength(2);
      expect(accepted.at(-1)).toBe(probePort);
    } finally {
      vi.useRealTimers();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 20_000);
});
