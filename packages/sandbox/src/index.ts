export { SandboxPool } from './sandbox-pool';
export { SandboxPoolClosedError } from './sandbox-pool-closed-error';
export { measureRun, type RunMeasurement } from './measure-run';
export { checkVerdict, VerdictSchema } from './verdict-schema';
export { SandboxLimitsSchema, SandboxToolboxFunctionSchema } from './run-request-schema';
export {
  DEFAULT_LIMITS,
  type SandboxToolboxFunction,
  type SandboxLimits,
  type RunRequest,
  type RunResult,
  type HostUsage,
  type ReuseMode,
  type Verdict,
  type SandboxPoolOptions,
  type SandboxPoolStats,
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
export { serveSandboxChild, type SandboxChildOptions, type ToolboxBuilder, type HostCall, type WarmUpRun } from './process/serve-sandbox-child';
export { ProcessRunRequestSchema, type ProcessRunRequest } from './process/messages';
export { snapMemoryMb, ISOLATE_MEMORY_SIZES_MB } from './process/snap-memory';
export { isolatedVmPackage } from './isolated-vm';
