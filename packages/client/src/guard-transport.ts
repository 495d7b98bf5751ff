import type { CompileResult, Decision, FeedbackCase, GuardJobInput, PolicyInput } from '@guardagent/schemas';

export interface CheckOptions {
  /** How long to wait for the decision (default 30 s). The job goes on after a timeout. */
  timeoutMs?: number;
}

export interface FeedbackInput {
  /** The right answer: 1 = should have been denied, 0 = should have been allowed. */
  correctLabel: 0 | 1;
  note?: string;
  /**
   * The job as submitted (input, output, context, subject, action). Required for decisions made
   * by a compiled program or the rails: those keep no case in memory, to keep the fast path lean.
   */
  job?: FeedbackCase;
}

/**
 * What an agent needs from GuardAgent, whichever way it reaches it: straight onto the queues
 * (QueueTransport) or over HTTP (HttpTransport).
 */
export interface GuardTransport {
  /** Enqueue a job; resolves with its id once it is durably queued. */
  submit(job: GuardJobInput): Promise<{ id: string }>;
  /** Enqueue and wait for the decision. */
  check(job: GuardJobInput, options?: CheckOptions): Promise<Decision>;
  /** The stored decision, or null while there is none (or after it expired). */
  result(id: string): Promise<Decision | null>;
  /** Say whether a decision was right; corrected cases become labelled examples. */
  feedback(id: string, feedback: FeedbackInput): Promise<{ promoted: boolean }>;
  /** Register (or update) a policy. */
  putPolicy(policy: PolicyInput): Promise<{ id: string; version: string; digest: string }>;
  /** Compile and verify a policy's program; resolves when it is promoted or has failed. */
  compile(policy: PolicyInput | string, options?: CheckOptions): Promise<CompileResult>;
  close(): Promise<void>;
}

/**
 * Called with the ids of jobs about to be queued, after validation and before anything is
 * written, and the bytes of their jobs' JSON (what they will hold in Redis); throwing refuses them
 * all. The gateway admits them against the tenant's quotas here.
 */
export type AdmitJobs = (jobIds: string[], bytes: number) => Promise<void>;
