import { NOT_YET_APPROVED_REASON, REJECTED_REASON, approvalTokenHash } from '@guardagent/rails/approval-contract';
import type { Decision, GuardJobInput, JsonObject } from '@guardagent/schemas';
import type { HeldCalls } from './held-calls';

/** A held call as a guarded tool reports it: the token to present on the retry, its id and expiry. */
export interface HeldCallInfo {
  token: string;
  id: string;
  /** Null when a token given by the caller was presented and nothing else is known of it. */
  expiresAt: string | null;
  reasons: string[];
}

/** What the guard's answer means for one tool call. */
export type GuardedCallOutcome =
  /** Run the tool, with `args` (the redacted arguments when the policy redacts PII from them). */
  | { kind: 'allow'; decision: Decision; args: JsonObject }
  /** Held for a person's approval: a new hold, or a retry whose token nobody decided yet. */
  | { kind: 'pending'; decision: Decision; held: HeldCallInfo }
  /** Refused: `rejected` when a person rejected the held call (the reasons say who and why). */
  | { kind: 'deny'; decision: Decision; reasons: string[]; rejected: boolean };

export interface GuardedCallInput {
  /** Decides one job (a transport's check, with whatever options it needs). */
  check: (job: GuardJobInput) => Promise<Decision>;
  /** The job, without an approval token (one is added when there is one to present). */
  job: GuardJobInput;
  subjectId: string;
  tool: string;
  args: JsonObject;
  /** A token the caller presents itself (the retry of a held call); it wins over a remembered one. */
  approvalToken?: string;
  /** Where the tokens of held calls are kept between the hold and the retry. */
  heldCalls?: HeldCalls;
}

const isWaiting = (decision: Decision) => decision.decision === 'deny' && decision.reasons.includes(NOT_YET_APPROVED_REASON);
const isRejected = (decision: Decision) => decision.decision === 'deny' && decision.reasons.some((reason) => reason.startsWith(REJECTED_REASON));

/**
 * Check one tool call the way every GuardAgent adapter does: present the token of the same call
 * held before (given, or remembered per subject and call), and keep `heldCalls` in step with the
 * answer. Allowed with the token: it was used, so it is forgotten, and the next identical call is
 * held afresh. A token nobody decided yet keeps the call `pending`. A rejected one is a refusal
 * with who rejected it and why; its token is forgotten. A remembered token that is used, expired
 * or unknown (a process died between the allow and forgetting it) is forgotten and the call
 * checked again without it, so it is held afresh rather than refused. A refusal for another
 * reason (a rate limit) keeps the token: it is still good.
 */
export async function checkGuardedCall(input: GuardedCallInput): Promise<GuardedCallOutcome> {
  return attempt(input, input.approvalToken === undefined);
}

async function attempt(input: GuardedCallInput, useMemory: boolean): Promise<GuardedCallOutcome> {
  const { heldCalls, subjectId, tool, args } = input;
  const remembered = useMemory && heldCalls ? await heldCalls.get(subjectId, tool, args) : null;
  const token = input.approvalToken ?? remembered?.token;
  const job: GuardJobInput = token ? { ...input.job, context: { ...(input.job.context ?? {}), approvalToken: token } } : input.job;
  const decision = await input.check(job);
  if (decision.decision === 'allow') {
    if (token) await heldCalls?.forget(subjectId, tool, args, token);
    return { kind: 'allow', decision, args: (decision.redacted?.args as JsonObject | undefined) ?? args };
  }
  if (decision.decision === 'pending' && decision.approval) {
    const held = {
      token: decision.approval.token,
      id: decision.approval.id ?? approvalTokenHash(decision.approval.token),
      expiresAt: decision.approval.expiresAt,
      reasons: decision.reasons,
    };
    await heldCalls?.remember(subjectId, tool, args, held);
    return { kind: 'pending', decision, held };
  }
  const rejected = isRejected(decision);
  // The rails name the token's own refusals `tools.<tool>.approval` (its approval rules carry an id of their own).
  if (token && decision.decision === 'deny' && decision.rules.includes(`tools.${tool}.approval`)) {
    if (isWaiting(decision)) {
      const reasons = remembered?.reasons ?? decision.reasons.filter((reason) => reason !== NOT_YET_APPROVED_REASON);
      return { kind: 'pending', decision, held: { token, id: approvalTokenHash(token), expiresAt: remembered?.expiresAt ?? null, reasons } };
    }
    await heldCalls?.forget(subjectId, tool, args, token);
    // A stale remembered token: the call is asked about afresh.
    if (remembered && !rejected) return attempt(input, false);
  }
  return { kind: 'deny', decision, reasons: decision.reasons, rejected };
}
