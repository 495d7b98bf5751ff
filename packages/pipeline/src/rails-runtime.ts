import type { HashWrite, StageJobPayload } from '@guardagent/queue';
import type { RegisteredPolicy } from '@guardagent/registry';
import type { Redacted } from '@guardagent/schemas';

/** The rails' conclusion on one job (see @guardagent/rails). */
export interface RailsVerdict {
  verdict: 'allow' | 'deny' | 'pending' | 'continue';
  reasons: string[];
  rules: string[];
  /** What the filters redacted; `args`: the tool call's arguments the tool must run with. */
  redacted?: Redacted;
  approval?: { token: string; id: string; expiresAt: string };
  /** The approval token's record, to be written only with the pending decision that carries it. */
  approvalRecord?: HashWrite;
}

/** Evaluates a policy's rails for a job, with its rate limiter and approval store bound. */
export interface RailsRuntime {
  /**
   * `callId` (one submission of a job) lets the shared stores recognise a re-run of it (counted once,
   * approval kept). With `replayId`, rate limits count in that replay's own windows and no approval
   * token is issued: a replayed check never uses up a live caller's budget or creates a usable token.
   */
  evaluate(tenant: string, registered: RegisteredPolicy, job: StageJobPayload, callId: string, options?: { replayId?: string | null; decisionId?: string }): Promise<RailsVerdict>;
}
