import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');

const live = new Set<ChildProcess>();
let hooked = false;

function killAll(): void {
  for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  live.clear();
}

/** Kill every child this bench started if it exits or crashes, so no executor outlives it. */
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAll();
      process.exit(130);
    });
  }
}

export interface SpawnOptions {
  /** Node flags, e.g. --cpu-prof. */
  execArgv?: string[];
  /** Modules imported (after tsx) before the entry. */
  preload?: string[];
}

export interface SpawnedNode {
  child: ChildProcess;
  pid: number;
  /** SIGTERM, then wait for exit (so --cpu-prof profiles get written); SIGKILL after a grace period. */
  stop(graceMs?: number): Promise<void>;
}

/** A Node child running a TypeScript entry file through tsx, stderr collected for failures. */
export function spawnNode(entry: string, env: Record<string, string>, options: SpawnOptions = {}): SpawnedNode {
  hookExit();
  const preloads = (options.preload ?? []).flatMap((file) => ['--import', file]);
  // Workspace packages from their sources, as the bench process itself reads them (npm run bench).
  const args = ['--no-node-snapshot', '--conditions=@guardagent/source', ...(options.execArgv ?? []), '--import', 'tsx', ...preloads, entry];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  child.stdout?.on('data', () => undefined);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', (code, signal) => {
    live.delete(child);
    if (code && code !== 0) process.stderr.write(`[bench] child ${entry} exited ${code} ${signal ?? ''}: ${stderr}\n`);
  });
  if (child.pid === undefined) throw new Error(`could not spawn ${entry}`);
  return {
    child,
    pid: child.pid,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A standalone stage service (`services/<stage>/src/main.ts`), as deployments run it. */
export function spawnService(stage: string, env: Record<string, string>, options: SpawnOptions = {}): SpawnedNode {
  return spawnNode(join(REPO_ROOT, 'services', stage, 'src', 'main.ts'), env, options);
}
