import type { Llm } from '@guardagent/llm';
import type { ProcessRunRequest, RunResult, SandboxProcessPoolStats } from '@guardagent/sandbox/host';
import type { DemonstrationStore } from '@guardagent/memory';
import type { PolicyRegistry, ProgramStore } from '@guardagent/registry';
import type { RailsOffload } from '@guardagent/rails';
import type { RailsRuntime } from './rails-runtime';

/**
 * Everything a stage handler may use, injected: handlers are plain functions, testable
 * without queues, and the same in one process (`guardagent up`) or many.
 */
export interface PipelineDeps {
  /** Null when no LLM is configured: jobs that need one end as guard_error at once. */
  llm: Llm | null;
  /** Runs guard code (and its toolbox) in sandbox worker processes. */
  sandbox: GuardRunner;
  policies: PolicyRegistry;
  programs: ProgramStore;
  memory: DemonstrationStore;
  rails: RailsRuntime;
  /** The rails' worker threads: heavy filter work and decision-log redaction run there, off the event loop. */
  railsOffload?: RailsOffload;
  /** Start a background compile for a policy version (auto mode); resolves once queued or skipped. */
  requestCompile: (tenant: string, digest: string) => Promise<void>;
  maxDebugRounds: number;
  /** Default limits of a guard run; `maxMs` caps what a policy may ask for (cpuMs and wallMs). */
  sandboxLimits: { cpuMs: number; wallMs: number; memoryMb: number; maxMs: number };
  now: () => number;
}

/** What the pipeline needs of a sandbox: `SandboxProcessPool`, or anything that keeps its promises. */
interface GuardRunner {
  run(request: ProcessRunRequest): Promise<RunResult>;
  stats(): SandboxProcessPoolStats;
  close(): Promise<void>;
}
