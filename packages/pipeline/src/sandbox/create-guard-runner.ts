import { fileURLToPath } from 'node:url';
import { SandboxProcessPool, type HostFunction, type SandboxProcessPoolOptions } from '@guardagent/sandbox';
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

/** The worker's entry module and the Node flags it needs (TypeScript through tsx, no snapshot for isolated-vm). */
export function sandboxWorkerCommand(): { entry: string; execArgv: string[] } {
  const entry = fileURLToPath(new URL('./sandbox-child-main.ts', import.meta.url));
  // Resolved here, not by the worker's cwd: the CLI may run from any directory.
  const tsx = import.meta.resolve('tsx');
  return { entry, execArgv: ['--no-node-snapshot', '--import', tsx] };
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
