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
