import { describe, expect, it } from 'vitest';
import { createServer, type Socket } from 'node:net';
import { UnavailableError } from '@guardagent/errors';
import { QueueTransport } from '@guardagent/client/queue';

describe('QueueTransport.connect', () => {
  it('fails fast with UnavailableError and stops reconnecting when Redis does not answer', async () => {
    // A server that accepts and hangs up at once: each reconnection attempt would show up here.
    let connections = 0;
    const sockets: Socket[] = [];
    const server = createServer((socket) => {
      connections++;
      sockets.push(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const started = Date.now();
      const error = await QueueTransport.connect({ redisUrl: `redis://127.0.0.1:${port}` }).catch((e) => e);
      expect(error).toBeInstanceOf(UnavailableError);
      expect(error.message).toMatch(/Redis is not reachable/);
      expect(Date.now() - started).toBeLessThan(5000);
      // Let an attempt already in flight land; ioredis would retry every ~50-200 ms if not stopped.
      await new Promise((r) => setTimeout(r, 300));
      const afterFailure = connections;
      await new Promise((r) => setTimeout(r, 1500));
      expect(connections).toBe(afterFailure);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 20_000);
});
