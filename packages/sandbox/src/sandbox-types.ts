import type { SandboxErrorKind } from '@guardagent/errors';

/** A trusted host function exposed to guard code as a global; same shape as `BuiltToolboxFunction`. */
export interface SandboxToolboxFunction {
  name: string;
  /** True when `fn` returns a Promise; guard code must `await` it. */
  async: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: any function at all; `unknown[]` parameters would not accept functions with typed ones
  fn: (...args: any[]) => unknown;
}

export interface SandboxLimits {
  /** CPU time of the guard's own execution (all of its synchronous slices together). Default 1000. */
  cpuMs?: number;
  /** Wall-clock deadline, including time spent awaiting async toolbox calls. Default 5000. */
  wallMs?: number;
  /** Isolate memory limit; isolates are pooled per distinct value. Default 64. */
  memoryMb?: number;
  /** Largest verdict accepted, measured as JSON text length. Default 256 KiB. */
  maxResultBytes?: number;
}

export type ResolvedLimits = Required<SandboxLimits>;

export const DEFAULT_LIMITS: ResolvedLimits = {
  cpuMs: 1000,
  wallMs: 5000,
  memoryMb: 64,
  maxResultBytes: 256 * 1024,
};

export type ReuseMode = 'fresh' | 'program';

export interface RunRequest {
  /** Body of an async function with `input`, `output`, `context` in scope. */
  code: string;
  input: unknown;
  output: unknown;
  context: unknown;
  toolbox: SandboxToolboxFunction[];
  limits?: SandboxLimits;
  /**
   * 'fresh': a new context for this run, released after (default; for unverified per-request code).
   * 'program': a verified program; may reuse a hardened (deep-frozen) context kept for this exact
   * code + toolbox on the isolate that serves the run.
   */
  reuse?: ReuseMode;
}

export interface Verdict {
  deny: boolean;
  reasons: string[];
  details: Record<string, unknown>;
}

/** What host calls (the LLM behind toolbox functions) spent for one run. */
export interface HostUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

export type RunResult =
  | { ok: true; verdict: Verdict; durationUs: number; toolCalls: number; hostUsage?: HostUsage }
  | { ok: false; error: { kind: SandboxErrorKind; message: string }; durationUs: number; toolCalls: number; hostUsage?: HostUsage };

export interface SandboxPoolOptions {
  /** Isolates per memory size. Default `os.availableParallelism()`. */
  size?: number;
  /** Memory limit of pooled isolates when a request does not set one. Default 64. */
  memoryMb?: number;
  /** Recycle an isolate after this many runs. Default 5000. */
  maxRunsPerIsolate?: number;
  /** Recycle an isolate once used heap / heap limit exceeds this. Default 0.7. */
  maxHeapRatio?: number;
  /** Recycle a hardened program context after this many runs. Default 1000. */
  maxRunsPerProgramContext?: number;
  /** Compiled scripts kept per isolate (LRU). Default 256. */
  maxCachedScripts?: number;
  /** Program contexts kept per isolate (LRU by code + toolbox). Default 16. */
  maxProgramContexts?: number;
  defaultLimits?: SandboxLimits;
  /** V8 lost control of an isolate; see isolated-vm's `onCatastrophicError`. Default: log to stderr. */
  onCatastrophicError?: (message: string) => void;
  /**
   * A group of isolates of a memory size other than the default is freed after this long without
   * a run. Default 60,000.
   */
  idleGroupMs?: number;
  /** Clock (tests). Default Date.now. */
  now?: () => number;
}

export interface SandboxPoolStats {
  isolates: number;
  /** Groups of isolates, one per memory size in use. */
  groups: number;
  runs: number;
  recycled: number;
  disposedByLimit: number;
  cachedScripts: number;
  cachedProgramContexts: number;
}
