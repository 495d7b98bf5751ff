import { fileURLToPath } from 'node:url';
import { readEnv } from '@guardagent/config';
import { SandboxProcessPool, type HostFunction, type SandboxProcessPoolOptions } from '@guardagent/sandbox/host';
import { SANDBOX_HOST_FUNCTIONS_ENV, SANDBOX_MAX_RUNS_ENV, SANDBOX_WARM_UP_ENV } from './sandbox-worker-env';

export interface GuardRunnerOptions {
  /** Worker processes (default: one per core). */
  size?: number;
  defaultLimits: { cpuMs: number; wallMs: number; memoryMb: number };
  /** Recycle a worker's isolate after this many runs. */
  maxRunsPerIsolate?: number;
  /** Functions of this process that guard code reaches through its toolbox, by name. */
  hostFunctions: Record<string, HostFunction>;
  /** Warm spares beside the pool (default 1). */
  spares?: number;
  crashBudget?: SandboxProcessPoolOptions['crashBudget'];
  /** Recycle a worker past this resident memory (MB); 0: never. */
  maxWorkerRssMb?: number;
  /** false: workers serve without warming up first (for measuring what warming saves). */
  warmUp?: boolean;
  onWorkerGone?: SandboxProcessPoolOptions['onWorkerGone'];
  onWorkerReady?: SandboxProcessPoolOptions['onWorkerReady'];
  onQuarantine?: SandboxProcessPoolOptions['onQuarantine'];
  onWorkerRecycled?: SandboxProcessPoolOptions['onWorkerRecycled'];
}

/**
 * The worker's entry module and the Node flags it needs (no snapshot, for isolated-vm).
 *
 * Built code (dist/, what services, the CLI and the image run) forks the built worker. Code run
 * from its TypeScript sources (tests, `tsx` scripts) forks the worker's source through tsx, so it
 * never runs a stale build; with GUARDAGENT_SANDBOX_WORKER=built it forks the built worker instead
 * (about half the start-up time), which the test setup asks for right after it has built.
 */
export function sandboxWorkerCommand(): { entry: string; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  if (!fromSource) return { entry: fileURLToPath(new URL('./sandbox-child-main.js', import.meta.url)), execArgv: ['--no-node-snapshot'] };
  if (readEnv('sandboxWorker') === 'built') {
    return { entry: fileURLToPath(new URL('../../dist/sandbox/sandbox-child-main.js', import.meta.url)), execArgv: ['--no-node-snapshot'] };
  }
  // Resolved here, not by the worker's cwd: the CLI may run from any directory.
  return { entry: fileURLToPath(new URL('./sandbox-child-main.ts', import.meta.url)), execArgv: ['--no-node-snapshot', '--import', import.meta.resolve('tsx')] };
}

/** The executor's guard runner: a pool of sandbox worker processes. */
export function createGuardRunner(options: GuardRunnerOptions): SandboxProcessPool {
  const { entry, execArgv } = sandboxWorkerCommand();
  return new SandboxProcessPool({
    entry,
    execArgv,
    ...(options.size ? { size: options.size } : {}),
    defaultLimits: options.defaultLimits,
    hostFunctions: options.hostFunctions,
    env: workerEnv(Object.keys(options.hostFunctions), options.maxRunsPerIsolate, options.warmUp ?? true),
    ...(options.spares !== undefined ? { spares: options.spares } : {}),
    ...(options.crashBudget !== undefined ? { crashBudget: options.crashBudget } : {}),
    ...(options.maxWorkerRssMb !== undefined ? { maxWorkerRssMb: options.maxWorkerRssMb } : {}),
    ...(options.onWorkerGone ? { onWorkerGone: options.onWorkerGone } : {}),
    ...(options.onWorkerReady ? { onWorkerReady: options.onWorkerReady } : {}),
    ...(options.onQuarantine ? { onQuarantine: options.onQuarantine } : {}),
    ...(options.onWorkerRecycled ? { onWorkerRecycled: options.onWorkerRecycled } : {}),
  });
}

/**
 * The environment of a worker: what Node and tsx need, never the executor's secrets (LLM key,
 * Redis URL, admin key). Guard code cannot read it from inside isolated-vm anyway; this keeps it
 * so even if V8's isolation failed.
 */
function workerEnv(hostFunctions: string[], maxRunsPerIsolate: number | undefined, warmUp: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { [SANDBOX_HOST_FUNCTIONS_ENV]: hostFunctions.join(',') };
  if (!warmUp) env[SANDBOX_WARM_UP_ENV] = 'off';
  if (maxRunsPerIsolate) env[SANDBOX_MAX_RUNS_ENV] = String(maxRunsPerIsolate);
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'TMP', 'TEMP', 'LANG', 'TZ', 'SYSTEMROOT']) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }
  return env;
}
