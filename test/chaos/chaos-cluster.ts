import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '@guardagent/local-redis';
import { spawnService, waitFor } from '../helpers/pipeline-stack';

/**
 * The chaos suite's size. `npm test` runs the short form (a few hundred checks per fault, short
 * locks so each fault recovers in seconds); `npm run chaos` sets CHAOS_FULL=1: thousands of checks
 * on the default lock settings, whose recovery bound (9 s) is what docs/operations.md promises.
 */
export const FULL = process.env.CHAOS_FULL === '1';
export const CHECKS = FULL ? 3000 : 300;
/** Lock and stalled-check interval the executors run with (the defaults in the full form). */
export const LOCK_MS = FULL ? 6000 : 3000;
export const STALLED_MS = FULL ? 3000 : 1000;
/** Room for what no pace measures (a process's start, a retry's backoff, the machine's swings). */
const RECOVERY_MARGIN_MS = FULL ? 20_000 : 12_000;
/** The bound when no pace was measured: lock + stalled check + the margin. */
export const RECOVERY_BOUND_MS = LOCK_MS + STALLED_MS + RECOVERY_MARGIN_MS;
/** How long a check() caller waits: the test's own time limit less a margin, so a slow run fails on the bound below, not on a caller's timeout. */
export const CALLER_TIMEOUT_MS = FULL ? 540_000 : 100_000;

/** How fast a rig decided its checks before the fault: measured in the same run, not taken from an idle machine. */
export interface Pace {
  /** When the checks were sent. */
  sentAt: number;
  /** When the fault landed, and how many checks were decided by then. */
  faultAt: number;
  decidedAtFault: number;
}

/**
 * How long after a fault every check must be decided: the lock and the stalled check (a dead
 * worker's job is taken over within their sum), plus the time the survivors need for the checks
 * left at the pace measured before the fault (`survivorsShare` of the executors still serving),
 * plus the margin. On an idle machine this is about the old fixed bound; on a loaded one it grows
 * with the work, so a slow machine is not read as a slow recovery.
 */
export function recoveryBoundMs(pace: Pace, survivorsShare: number): number {
  const perMs = pace.decidedAtFault / Math.max(1, pace.faultAt - pace.sentAt);
  const drainMs = perMs > 0 ? (CHECKS - pace.decidedAtFault) / (perMs * survivorsShare) : 0;
  return Math.round(LOCK_MS + STALLED_MS + drainMs + RECOVERY_MARGIN_MS);
}

/** A redis-server the suite can SIGKILL and restart on the same port and data directory. */
export interface ChaosRedis {
  url: string;
  /** SIGKILL the server (nothing is flushed beyond what its fsync setting already wrote). */
  kill(): void;
  /** Resolves once the killed server's process is gone (its files may be changed then). */
  exited(): Promise<void>;
  /** The append-only file Redis is appending to now (Redis 7: the manifest's incremental file). */
  aofFile(): string;
  /** Start it again on the same port and directory; resolves once it answers PING with its data loaded. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startChaosRedis(options: { aof: 'always' | 'everysec' | 'off' }): Promise<ChaosRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'guardagent-chaos-redis-'));
  const args = [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '',
    '--appendonly', options.aof === 'off' ? 'no' : 'yes', '--appendfsync', options.aof === 'everysec' ? 'everysec' : 'always',
    '--maxmemory-policy', 'noeviction', '--protected-mode', 'yes', '--loglevel', 'warning',
  ];
  let child: ChildProcess | null = null;
  const url = `redis://127.0.0.1:${port}`;
  const start = async () => {
    child = spawn('redis-server', args, { stdio: 'ignore' });
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined); // refused until the server is up
    try {
      await waitFor(async () => {
        try {
          if (probe.status !== 'ready') await probe.connect();
          return (await probe.ping()) === 'PONG';
        } catch {
          probe.disconnect();
          return false;
        }
      }, 15_000, 'redis-server to answer');
    } finally {
      probe.disconnect();
    }
  };
  await start();
  return {
    url,
    kill: () => void child?.kill('SIGKILL'),
    exited: () =>
      new Promise<void>((resolve) => {
        const current = child as ChildProcess | null;
        if (!current || current.exitCode !== null || current.signalCode !== null) return resolve();
        current.once('exit', () => resolve());
      }),
    aofFile: () => {
      const manifest = readFileSync(join(dir, 'appendonlydir', 'appendonly.aof.manifest'), 'utf8');
      const incremental = manifest.split('\n').filter((line) => line.includes('type i')).pop();
      const name = incremental?.match(/^file (\S+)/)?.[1];
      if (!name) throw new Error(`no incremental AOF in the manifest: ${manifest}`);
      return join(dir, 'appendonlydir', name);
    },
    restart: start,
    async stop() {
      child?.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Executor processes, as deployments run them, each with its log kept for the assertions. */
export class Executors {
  readonly children: ChildProcess[] = [];
  readonly logs = new Map<number, string>();

  constructor(private readonly env: Record<string, string>) {}

  start(): ChildProcess {
    const child = spawnService('executor', {
      GUARDAGENT_LOCK_DURATION_MS: String(LOCK_MS),
      GUARDAGENT_STALLED_INTERVAL_MS: String(STALLED_MS),
      ...this.env,
    });
    this.children.push(child);
    this.logs.set(child.pid!, '');
    child.stderr?.on('data', (chunk: Buffer) => this.logs.set(child.pid!, this.logs.get(child.pid!) + chunk.toString()));
    return child;
  }

  /**
   * Resolves with the time `child` logged that its workers run ("service started"); rejects if it
   * exits first.
   */
  startedAt(child: ChildProcess): Promise<number> {
    return new Promise((resolve, reject) => {
      const started = (): boolean => this.logs.get(child.pid!)?.includes('"msg":"service started"') === true;
      const onData = () => {
        if (!started()) return;
        child.off('exit', onExit);
        child.stderr?.off('data', onData);
        resolve(Date.now());
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        child.stderr?.off('data', onData);
        reject(new Error(`the executor exited (${code ?? signal}) before it started`));
      };
      if (started()) return resolve(Date.now());
      // After start()'s own listener, which appends the chunk to the log this one reads.
      child.stderr?.on('data', onData);
      child.once('exit', onExit);
    });
  }

  alive(): ChildProcess[] {
    return this.children.filter((c) => c.exitCode === null && c.signalCode === null);
  }

  log(): string {
    return [...this.logs.values()].join('');
  }

  stopAll(): void {
    for (const child of this.children) child.kill('SIGKILL');
  }
}

/** One line of the report `npm run chaos` prints and docs/operations.md quotes. */
export interface ChaosRecord {
  fault: string;
  checks: number;
  decided: number;
  /** Decision keys in Redis after the run (one per check id; more than `checks` when a refused submit had in fact been queued). */
  storedDecisions: number;
  /** Announcements heard per check id on the callers' channel beyond the first. */
  duplicateAnnouncements: number;
  /** From the fault to the last decision, ms. */
  recoveryMs: number;
  notes?: string;
}

/** Append a record to CHAOS_REPORT (a JSON array), when set. */
export function report(record: ChaosRecord): void {
  const file = process.env.CHAOS_REPORT;
  if (!file) return;
  const all: ChaosRecord[] = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ChaosRecord[]) : [];
  all.push({ ...record, notes: [record.notes, FULL ? 'full form' : 'short form'].filter(Boolean).join('; ') });
  writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
}
