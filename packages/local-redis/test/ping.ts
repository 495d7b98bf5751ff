import { createConnection } from 'node:net';

/** PING a server on a loopback port over a bare socket: its first reply line ('+PONG'), or the connection error. */
export function ping(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().trim());
    });
    socket.once('error', reject);
  });
}

/**
 * Whether the server on `port` is the one with password `password`: it answers AUTH with +OK
 * within `timeoutMs`. A closed port, another server (another test's Redis, or an HTTP server that
 * waits for a whole request) or no answer in time all say no.
 */
export function answersWithPassword(port: number, password: string, timeoutMs = 2_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => socket.write(`AUTH ${password}\r\n`));
    const done = (ours: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ours);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('data', (data) => done(data.toString().startsWith('+OK')));
    socket.once('error', () => done(false));
  });
}
