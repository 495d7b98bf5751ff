// `@guardagent/sandbox/host`: what a process that runs guard code in forked sandbox workers needs
// (the executor, through @guardagent/pipeline). Nothing here loads isolated-vm's native addon,
// directly or through another module (types only): the workers load it (`serveSandboxChild`, from
// the main entry), and only they need --no-node-snapshot. packages/pipeline/test/no-addon-in-host.test.ts checks it.
export { SandboxPoolClosedError } from './sandbox-pool-closed-error';
export { checkVerdict, VerdictSchema } from './verdict-schema';
export { SandboxLimitsSchema, SandboxToolboxFunctionSchema } from './run-request-schema';
export {
  DEFAULT_LIMITS,
  type SandboxToolboxFunction,
  type SandboxLimits,
  type RunResult,
  type HostUsage,
  type Verdict,
} from './sandbox-types';
export {
  SandboxProcessPool,
  DEFAULT_MAX_HOST_CALLS_PER_RUN,
  type SandboxProcessPoolOptions,
  type SandboxProcessPoolStats,
  type HostFunction,
  type HostCallContext,
  type TenantWaits,
  WAIT_BUCKETS_MS,
} from './process/sandbox-process-pool';
export { DEFAULT_CRASH_BUDGET, type CrashBudgetOptions, type Quarantine } from './process/crash-budget';
export { ProcessRunRequestSchema, type ProcessRunRequest } from './process/messages';
export { snapMemoryMb, ISOLATE_MEMORY_SIZES_MB } from './process/snap-memory';
