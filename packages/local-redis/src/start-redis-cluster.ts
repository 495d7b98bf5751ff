import { spawn } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from './free-port';
import { RedisServerMissingError } from './redis-server-missing-error';
import { hasBinary, startRedisServer, type LocalRedis } from './start-redis-server';

export interface StartRedisClusterOptions {
  /** Number of primaries, no replicas; default 3 (the fewest `redis-cli --cluster create` accepts). */
  primaries?: number;
  /** Bound on the whole start: servers, join, and every node reporting the cluster ok. Default 30 s. */
  startTimeoutMs?: number;
  /** Extra `--name value` settings for every node. */
  settings?: Record<string, string>;
  /** redis-server binary; default from PATH. */
  binary?: string;
  /** redis-cli binary; default from PATH. */
  cliBinary?: string;
}

export interface LocalRedisCluster {
  nodes: Array<{ host: string; port: number }>;
  /** Seed list for ioredis Cluster. */
  urls: string[];
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
// Redis Cluster nodes also listen on port + 10000 for the cluster bus.
const BUS_PORT_OFFSET = 10_000;
const MAX_PORT = 65_535;
const SLOT_COUNT = 16_384;

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

async function portPairFree(port: number): Promise<boolean> {
  return port + BUS_PORT_OFFSET <= MAX_PORT && (await canListen(port)) && (await canListen(port + BUS_PORT_OFFSET));
}

async function startNode(options: StartRedisClusterOptions, deadline: number): Promise<LocalRedis> {
  for (;;) {
    if (Date.now() > deadline) throw new Error('No free port whose cluster bus port (port + 10000) was free too');
    const port = await freePort();
    if (!(await portPairFree(port))) continue;
    try {
      return await startRedisServer({
        binary: options.binary,
        port,
        startTimeoutMs: deadline - Date.now(),
        settings: {
          'cluster-enabled': 'yes',
          // Relative to the server's own temp `dir`, so no two nodes share the file.
          'cluster-config-file': 'nodes.conf',
          'cluster-node-timeout': '5000',
          ...options.settings,
        },
      });
    } catch (error) {
      // Another process can take either port between the check and redis binding it, and redis
      // then exits at start. Only that race is worth another pair; anything else is real.
      if (Date.now() > deadline || (await portPairFree(port))) throw error;
    }
  }
}

function runCli(cli: string, args: string[], deadline: number): Promise<{ ok: boolean; timedOut: boolean; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        child.kill('SIGKILL');
      },
      Math.max(0, deadline - Date.now()),
    );
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ ok: code === 0, timedOut, output: output.trim() });
    });
  });
}

/** `CLUSTER INFO` over a raw connection, parsed into its `field:value` lines. */
function clusterInfo(port: number): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: HOST }, () => socket.write('CLUSTER INFO\r\n'));
    socket.setTimeout(1_000, () => socket.destroy(new Error(`no reply from ${HOST}:${port}`)));
    let reply = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      reply = Buffer.concat([reply, chunk]);
      const headerEnd = reply.indexOf('\r\n');
      if (headerEnd === -1) return;
      const header = reply.subarray(0, headerEnd).toString();
      if (!header.startsWith('$')) {
        socket.destroy(new Error(header));
        return;
      }
      // A bulk string: `$<length>\r\n<body>\r\n`; a reply can arrive in several chunks.
      const length = Number(header.slice(1));
      if (reply.length < headerEnd + 2 + length) return;
      const body = reply.subarray(headerEnd + 2, headerEnd + 2 + length).toString();
      socket.destroy();
      resolve(new Map(body.split('\r\n').filter(Boolean).map((line) => line.split(':', 2) as [string, string])));
    });
    socket.once('error', reject);
  });
}

async function waitForClusterOk(ports: number[], deadline: number): Promise<void> {
  for (;;) {
    const infos = await Promise.all(ports.map((port) => clusterInfo(port).catch((error: Error) => error)));
    const lagging = infos.findIndex(
      (info) =>
        info instanceof Error ||
        info.get('cluster_state') !== 'ok' ||
        info.get('cluster_slots_assigned') !== String(SLOT_COUNT) ||
        info.get('cluster_known_nodes') !== String(ports.length),
    );
    if (lagging === -1) return;
    if (Date.now() > deadline) {
      const info = infos[lagging];
      const seen = info instanceof Error ? info.message : [...info].map(([k, v]) => `${k}:${v}`).join(' ');
      throw new Error(`Redis cluster was not ok in time; ${HOST}:${ports[lagging]} reports ${seen}`);
    }
    await delay(50);
  }
}

/**
 * Start a private, throw-away Redis Cluster of `primaries` nodes (no replicas) on free loopback
 * ports, each node a `startRedisServer` server, and resolve once every node reports all slots
 * served. The nodes die with this process, however it dies.
 */
export async function startRedisCluster(options: StartRedisClusterOptions = {}): Promise<LocalRedisCluster> {
  const primaries = options.primaries ?? 3;
  if (!Number.isInteger(primaries) || primaries < 3) {
    throw new RangeError(`A Redis Cluster needs at least 3 primaries; got ${primaries}`);
  }
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  // Both binaries are checked before any server starts, so a missing one leaves nothing behind.
  if (!hasBinary(options.binary ?? 'redis-server')) throw new RedisServerMissingError();
  const cli = options.cliBinary ?? 'redis-cli';
  if (!hasBinary(cli)) {
    throw new Error(
      `${cli} is not on PATH; startRedisCluster needs it to join the nodes. Install it (Debian/Ubuntu: ` +
        '`sudo apt-get install -y redis-tools`; macOS: `brew install redis`).',
    );
  }

  const servers: LocalRedis[] = [];
  const stopAll = async () => {
    await Promise.all(servers.map((server) => server.stop()));
  };
  try {
    for (let i = 0; i < primaries; i++) servers.push(await startNode(options, deadline));
    const ports = servers.map((server) => server.port);
    const args = ['--cluster', 'create', ...ports.map((port) => `${HOST}:${port}`), '--cluster-replicas', '0', '--cluster-yes'];
    const created = await runCli(cli, args, deadline);
    if (created.timedOut) throw new Error(`redis-cli --cluster create did not finish in time:\n${created.output}`);
    if (!created.ok) throw new Error(`redis-cli --cluster create failed:\n${created.output}`);
    await waitForClusterOk(ports, deadline);
  } catch (error) {
    await stopAll();
    throw error;
  }

  let stopping: Promise<void> | undefined;
  return {
    nodes: servers.map((server) => ({ host: HOST, port: server.port })),
    urls: servers.map((server) => server.url),
    stop() {
      stopping ??= stopAll();
      return stopping;
    },
  };
}
