import type { RailsConfig } from '@guardagent/schemas';
import type { CheckSnapshot } from '../check-text';
import type { CompiledRails } from '../compiled-rails';
import type { RailsJob } from '../rails-job';

/** checkRails' result as plain data: the findings, and the store work left for a tool call. */
export interface SerializedCheck {
  state: CheckSnapshot;
  work?: { tool: string; args: Record<string, unknown>; subjectId: string; approvalRuleIds: string[] };
  checkUs: number;
}

/** Why work sent off the event loop came back without a result (each fails closed). */
export type OffloadFailure = { ok: false; reason: 'timeout' | 'busy' | 'crashed' | 'closed' | 'error'; message: string };
export type OffloadResult<T> = { ok: true; value: T } | OffloadFailure;

/** Runs the rails' heavy, pure work off the caller's event loop (RailsWorkerPool). */
export interface RailsOffload {
  /** checkRails for `job` (with `compiled`'s config) within `deadlineMs`. */
  check(compiled: CompiledRails, job: RailsJob, deadlineMs: number): Promise<OffloadResult<SerializedCheck>>;
  /** redactPiiDeep(value) (every PII kind) within `deadlineMs`. */
  redact<T>(value: T, deadlineMs: number): Promise<OffloadResult<T>>;
}

/** Messages to a rails worker thread. */
export type WorkerRequest =
  | { id: number; kind: 'check'; key: string; config: RailsConfig; job: RailsJob; deadlineMs: number }
  | { id: number; kind: 'redact'; value: unknown };

/** Messages from a rails worker thread. */
export type WorkerReply = { ready: true } | { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };
