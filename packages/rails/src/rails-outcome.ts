import type { PiiKind } from '@guardagent/schemas';

/** `continue`: the rails found nothing to decide; the job goes on to the GuardAgent stage. */
export type RailsVerdict = 'allow' | 'deny' | 'pending' | 'continue';

export interface RailsOutcome {
  verdict: RailsVerdict;
  reasons: string[];
  /**
   * Rule ids that fired, e.g. `tools.allowlist`, `input.pii.card`, `tools.issue_refund.rate-limit`.
   * A tool call's arguments are read by the input filters under the same ids (`input.pii.<kind>`,
   * `input.injection`), plus `input.args.unread` and `input.args.unredactable` (both deny).
   */
  rules: string[];
  /**
   * Texts with PII replaced by `[REDACTED:<kind>]`, present only when something was redacted.
   * `input` / `output`: the job's input / output. `message`: the action's message text. When the
   * job's own field had nothing to redact, the message's redacted text is also put under the
   * field of its boundary (user/tool -> input, assistant -> output), so a Decision carries it.
   * `args`: a tool call's arguments with the PII the input filter found replaced (the arguments
   * the tool must run with, and the ones the tool checks judged).
   */
  redacted?: { input?: string; output?: string; message?: string; args?: Record<string, unknown> };
  /** For `pending` with an approval store: the single-use token that approves exactly this call. */
  approval?: { token: string; id: string; expiresAt: string };
  /** What the filters saw (counts only, never the matched text), for decision details and logs. */
  findings: {
    injection?: { score: number; signals: string[] };
    pii: Array<{ where: 'input' | 'output' | 'message' | 'args'; kind: PiiKind; count: number }>;
  };
  /** Microseconds: `check` (pure, in process), `rateLimit`, `approval` (store round trips), `total`. */
  timingsUs: Record<string, number>;
}
