import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { RedisServerMissingError } from './redis-server-missing-error';

export interface LocalRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface StartRedisOptions {
  /** redis-server binary; default from PATH. */
  binary?: string;
  /** Extra `--name value` settings. */
  settings?: Record<string, string>;
  /** Port to listen on; default a free one. */
  port?: number;
  startTimeoutMs?: number;
}

export function hasBinary(binary: string): boolean {
  const probe = spawnSync(binary, ['--version'], { stdio: 'ignore' });
  return !probe.error && probe.status === 0;
}

function waitForPort(port: number, deadline: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = createConnection({ port, host: '127.0.0.1' });
      socket.once('connect', () => {
        socket.write('PING\r\n');
        socket.once('data', () => {
          socket.destroy();
          resolve();
        });
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) reject(new Error(`redis-server did not accept connections on port ${port}`));
        else setTimeout(attempt, 25);
      });
    };
    attempt();
  });
}

/**
 * Start a private, throw-away redis-server on a free loopback port: no persistence,
 * `noeviction` (BullMQ requires it). The server dies with this process, however it dies.
 */
export async function startRedisServer(options: StartRedisOptions = {}): Promise<LocalRedis> {
  const binary = options.binary ?? 'redis-server';
  if (!hasBinary(binary)) throw new RedisServerMissingError();
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'guardagent-redis-'));
  const settings: Record<string, string> = {
    port: String(port),
    bind: '127.0.0.1',
    save: '',
    appendonly: 'no',
    dir,
    'maxmemory-policy': 'noeviction',
    'protected-mode': 'yes',
    loglevel: 'warning',
    ...options.settings,
  };
  const args = Object.entries(settings).flatMap(([key, value]) => [`--${key}`, value]);
  // The server must not outlive this process, even one killed by SIGKILL (no exit handler runs
  // then). A shell starts it and keeps a pipe from this process on fd 3; a background reader
  // stops the server when the pipe closes, which the kernel does however this process ends.
  // `wait` makes the shell end when the server does, so 'exit' below is the server's exit.
  const script = [
    'bin="$1"; shift',
    'exec 3<&0',
    '"$bin" "$@" </dev/null &',
    'pid=$!',
    '(read -r _ <&3; kill "$pid" 2>/dev/null) &',
    'exec 3<&-',
    'wait "$pid"',
  ].join('\n');
  const child = spawn('sh', ['-c', script, 'guardagent-redis', binary, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Nothing is ever written: closing stdin is the stop signal (SIGTERM; no persistence to save).
  child.stdin?.on('error', () => undefined);
  const release = () => child.stdin?.destroy();
  try {
    await Promise.race([
      waitForPort(port, Date.now() + (options.startTimeoutMs ?? 10_000)),
      exited.then(() => {
        throw new Error(`redis-server exited at start: ${stderr.trim()}`);
      }),
    ]);
  } catch (error) {
    release();
    await exited;
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let stopped = false;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (stopped) return;
      stopped = true;
      release();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
