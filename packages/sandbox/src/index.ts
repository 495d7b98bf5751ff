// The whole sandbox: the host entry (./host, what the executor needs) and what loads isolated-vm
// (the in-process pool, the sandbox worker's body).
export * from './host';
export { SandboxPool } from './sandbox-pool';
export { measureRun, type RunMeasurement } from './measure-run';
export type { RunRequest, ReuseMode, SandboxPoolOptions, SandboxPoolStats } from './sandbox-types';
export { serveSandboxChild, type SandboxChildOptions, type ToolboxBuilder, type HostCall, type WarmUpRun } from './process/serve-sandbox-child';
export { isolatedVmPackage } from './isolated-vm';
