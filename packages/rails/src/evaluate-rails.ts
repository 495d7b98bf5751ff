import { performance } from 'node:perf_hooks';
import { textOf } from '@guardagent/schemas';
import type { CompiledRails } from './compiled-rails';
import { CheckState, RAILS_DEADLINE_MS, checkInjection, checkPii } from './check-text';
import type { OffloadFailure, RailsOffload, SerializedCheck } from './offload/offload-types';
import { railsWeight } from './offload/rails-weight';
import { TURN_BUDGET_CHARS, takeTurn } from './offload/turn-budget';
import { checkToolCall, type PendingToolWork } from './check-tool-call';
import { checkToolArgs } from './tool-args/check-tool-args';
import type { RailsJob } from './rails-job';
import type { RailsOutcome } from './rails-outcome';
import type { RateLimiter } from './stores/rate-limiter';
import type { ApprovalStore, ConsumeResult } from './stores/approval-store';
import { looksLikeApprovalToken } from './stores/approval-token';
import { NOT_YET_APPROVED_REASON, REJECTED_REASON } from './approval-contract';

export interface RailsDeps {
  /** Needed when a tool rule has a rate limit; without it such calls are denied (fail closed). */
  rateLimiter?: RateLimiter;
  /** Needed to issue and redeem approval tokens. */
  approvals?: ApprovalStore;
  /** Namespace of rate-limit keys and approval tokens. */
  tenant?: string;
  policyId?: string;
  /** Time budget of the pure checks, ms (default RAILS_DEADLINE_MS). */
  deadlineMs?: number;
  /** The guard job's id, so a re-run of the same job is neither counted twice nor refused its approval. */
  callId?: string;
  /** The decision id of the job (kept with an approval it issues, for the approver). */
  decisionId?: string;
  /**
   * Where the filters of a job heavier than INLINE_MAX_CHARS run, off the caller's event loop
   * (RailsWorkerPool), within RAILS_OFFLOAD_DEADLINE_MS (or `deadlineMs`). Without it every job
   * runs inline, as before.
   */
  offload?: RailsOffload;
}

/**
 * Jobs whose filters read at most this many characters (railsWeight) run inline: a few
 * milliseconds at worst, and no thread hop for the ordinary job. Heavier ones go to `offload`.
 */
export const INLINE_MAX_CHARS = TURN_BUDGET_CHARS;

/**
 * The rails' budget for a job run off the event loop, ms. Not bound by the queue lock (the
 * executor's loop renews it meanwhile), so it is larger than RAILS_DEADLINE_MS: texts at the size
 * cap in every field take a few seconds. Past it (plus a second's grace) the worker is terminated
 * and the job denied (`rails.deadline`).
 */
export const RAILS_OFFLOAD_DEADLINE_MS = 5000;

/** The pure result of the rails: everything decided without I/O, plus the store work left for a tool call. */
export interface RailsCheck {
  state: CheckState;
  work?: PendingToolWork;
  checkUs: number;
}

const elapsedUs = (since: number): number => Math.round((performance.now() - since) * 1000 * 10) / 10;

/**
 * The synchronous part of the rails: input and output filters and the tool checks that need no
 * store. Fast (no I/O, compiled validators and CEL programs).
 */
export function checkRails(compiled: CompiledRails, job: RailsJob, options: { deadlineMs?: number | undefined } = {}): RailsCheck {
  const started = performance.now();
  const state = new CheckState(options.deadlineMs);
  const action = job.action;
  const input = textOf(job.input);
  const output = textOf(job.output);
  const message = action?.kind === 'message' ? action.text : '';
  const messageBoundary = action?.kind === 'message' ? (action.role === 'assistant' ? 'output' : 'input') : undefined;

  const inputTexts = messageBoundary === 'input' ? [input, message] : [input];
  checkInjection(inputTexts, compiled.input.injection?.threshold, state);
  checkPii(input, 'input', 'input', compiled.input.pii, state);
  checkPii(output, 'output', 'output', compiled.output.pii, state);
  if (messageBoundary) {
    const filter = messageBoundary === 'input' ? compiled.input.pii : compiled.output.pii;
    checkPii(message, 'message', messageBoundary, filter, state);
    if (state.redacted.message !== undefined && state.redacted[messageBoundary] === undefined) {
      state.redacted[messageBoundary] = state.redacted.message;
    }
  }

  let work: PendingToolWork | undefined;
  if (action?.kind === 'tool_call' && !state.pastDeadline()) {
    // The tool checks judge the call that will run: with the redacted arguments when the input
    // filter redacts (an approval is then bound to those too).
    const args = checkToolArgs(action, compiled, state);
    if (!state.pastDeadline()) work = checkToolCall(compiled, { ...action, args: args as typeof action.args }, job.subject, state);
  }
  state.pastDeadline();
  return { state, work, checkUs: elapsedUs(started) };
}

/**
 * checkRails where it belongs: inline for a light job (taking its turn, so many light jobs decided
 * together still let the event loop run between them), off the loop for a heavy one. A heavy job
 * whose filters cannot finish there (deadline, a busy or dead worker) is denied.
 */
async function runChecks(compiled: CompiledRails, job: RailsJob, deps: RailsDeps): Promise<RailsCheck> {
  const weight = railsWeight(job, INLINE_MAX_CHARS);
  if (!deps.offload || weight <= INLINE_MAX_CHARS) {
    await takeTurn(weight);
    return checkRails(compiled, job, { deadlineMs: deps.deadlineMs });
  }
  const started = performance.now();
  const result = await deps.offload.check(compiled, job, deps.deadlineMs ?? RAILS_OFFLOAD_DEADLINE_MS);
  if (result.ok) return restoreCheck(compiled, result.value);
  const state = new CheckState();
  failClosed(state, result);
  return { state, checkUs: elapsedUs(started) };
}

function failClosed(state: CheckState, failure: OffloadFailure): void {
  state.deny = true;
  if (failure.reason === 'timeout') state.fire('rails.deadline', 'the rails could not finish within their time budget; denied');
  else if (failure.reason === 'busy') state.fire('rails.deadline', `the rails could not start within their time budget (${failure.message}); denied`);
  else state.fire('rails.failed', `the rails could not read the job (${failure.message}); denied`);
}

/** A check made in a worker thread, with this thread's compiled tool rules for the store work left. */
function restoreCheck(compiled: CompiledRails, check: SerializedCheck): RailsCheck {
  const state = CheckState.from(check.state, RAILS_DEADLINE_MS);
  if (!check.work) return { state, checkUs: check.checkUs };
  const tool = compiled.tools.get(check.work.tool) ?? { name: check.work.tool, authorize: [], requireApproval: [] };
  const approvalRules = tool.requireApproval.filter((rule) => check.work!.approvalRuleIds.includes(rule.ruleId));
  return { state, work: { tool, args: check.work.args, subjectId: check.work.subjectId, approvalRules }, checkUs: check.checkUs };
}

const CONSUME_REASONS: Record<Exclude<ConsumeResult, 'allowed'>, string> = {
  'not-approved': NOT_YET_APPROVED_REASON,
  rejected: REJECTED_REASON,
  expired: 'the approval token has expired',
  mismatch: 'the approval token was issued for a different call (tool, arguments or subject)',
  used: 'the approval token has already been used',
  unknown: 'the approval token is unknown',
};

/** "the approval was rejected by <who>: <why>", the reason the model reads for a rejected call. */
async function rejectionReason(approvals: ApprovalStore, token: string, tenant: string): Promise<string> {
  const record = await approvals.get(token, { tenant });
  const by = record?.approver ? ` by ${record.approver}` : '';
  return record?.reason ? `${REJECTED_REASON}${by}: ${record.reason}` : `${REJECTED_REASON}${by}`;
}

function finish(
  check: RailsCheck,
  verdict: RailsOutcome['verdict'],
  started: number,
  extra: Partial<Pick<RailsOutcome, 'approval'>> & { timings?: Record<string, number> } = {},
): RailsOutcome {
  const { state } = check;
  const outcome: RailsOutcome = {
    verdict,
    reasons: state.reasons,
    rules: state.rules,
    findings: state.findings,
    timingsUs: { check: check.checkUs, ...extra.timings, total: elapsedUs(started) },
  };
  if (state.hasRedaction) outcome.redacted = state.redacted;
  if (extra.approval) outcome.approval = extra.approval;
  return outcome;
}

/**
 * Run a policy's rails on one job. Order: input filters and output filters, then for a tool call
 * subject -> role allow-list -> argument schema -> authorization -> approval conditions (all pure),
 * then, only when the tool rule has them, approval token -> rate limit -> token use.
 * - any deny ends the job (`deny`); pure denies never touch a store;
 * - a call needing approval without `job.context.approvalToken` is `pending` with a fresh
 *   single-use token (not counted against the rate limit: the approved retry is);
 * - an approved token for exactly this call (tool, canonical args, subject, tenant, policy) is
 *   checked, the rate limit applied, then the token used atomically: `allow`, once;
 * - otherwise `continue`: the rails found nothing to decide.
 */
export async function evaluateRails(compiled: CompiledRails, job: RailsJob, deps: RailsDeps = {}): Promise<RailsOutcome> {
  const started = performance.now();
  const check = await runChecks(compiled, job, deps);
  const { state, work } = check;
  if (state.deny) return finish(check, 'deny', started);
  if (!work || (!work.tool.rateLimit && work.approvalRules.length === 0)) return finish(check, 'continue', started);

  const tenant = deps.tenant ?? 'default';
  const policyId = deps.policyId ?? 'default';
  const timings: Record<string, number> = {};
  const token = job.context?.approvalToken;
  const needsApproval = work.approvalRules.length > 0;
  for (const rule of work.approvalRules) state.fire(rule.ruleId, rule.message);

  if (needsApproval && (token === undefined || token === null)) {
    // Held, not counted against the rate limit: the approved retry is the call that counts.
    if (!deps.approvals) {
      state.fire(`tools.${work.tool.name}.approval`, 'approval needed, but no approval store is configured to issue a token');
      return finish(check, 'pending', started);
    }
    const t = performance.now();
    const ticket = await deps.approvals.create({
      tenant,
      policyId,
      tool: work.tool.name,
      args: work.args,
      subjectId: work.subjectId,
      ttlSeconds: compiled.approvalTtlSeconds,
      reasons: work.approvalRules.map((rule) => rule.message),
      rules: work.approvalRules.map((rule) => rule.ruleId),
      ...(deps.decisionId ? { callId: deps.decisionId } : {}),
    });
    timings.approval = elapsedUs(t);
    return finish(check, 'pending', started, { approval: ticket, timings });
  }

  // With a token: check it without using it, then the rate limit, then use it. A refused token
  // costs no rate-limit slot, and a rate-limited call does not burn an approved token.
  const approvalRule = `tools.${work.tool.name}.approval`;
  const call = { tool: work.tool.name, args: work.args, subjectId: work.subjectId, tenant, policyId, ...(deps.callId ? { callId: deps.callId } : {}) };
  if (needsApproval) {
    if (!looksLikeApprovalToken(token)) {
      state.fire(approvalRule, 'the approval token is malformed');
      return finish(check, 'deny', started);
    }
    if (!deps.approvals) {
      state.fire(approvalRule, 'an approval token was presented, but no approval store is configured');
      return finish(check, 'deny', started);
    }
    const t = performance.now();
    const status = await deps.approvals.peek(token, call);
    timings.approval = elapsedUs(t);
    if (status !== 'allowed') {
      state.fire(approvalRule, status === 'rejected' ? await rejectionReason(deps.approvals, token, tenant) : CONSUME_REASONS[status]);
      return finish(check, 'deny', started, { timings });
    }
  }

  const limit = work.tool.rateLimit;
  if (limit) {
    if (!deps.rateLimiter) {
      state.fire(limit.ruleId, `'${work.tool.name}' has a rate limit, but no rate limiter is configured`);
      return finish(check, 'deny', started, { timings });
    }
    const t = performance.now();
    const hit = await deps.rateLimiter.hit({
      tenant,
      policyId,
      tool: work.tool.name,
      subjectId: work.subjectId,
      max: limit.max,
      windowSeconds: limit.windowSeconds,
      ...(deps.callId ? { callId: deps.callId } : {}),
    });
    timings.rateLimit = elapsedUs(t);
    if (!hit.allowed) {
      state.fire(
        limit.ruleId,
        `rate limit: at most ${limit.max} '${work.tool.name}' calls per ${limit.windowSeconds} s (retry in ${Math.ceil(hit.retryAfterMs / 1000)} s)`,
      );
      return finish(check, 'deny', started, { timings });
    }
  }

  if (!needsApproval || !deps.approvals || typeof token !== 'string') return finish(check, 'continue', started, { timings });

  const t = performance.now();
  // Atomic: if another executor used the token since the peek, this one loses.
  const consumed = await deps.approvals.consume(token, call);
  timings.approval = (timings.approval ?? 0) + elapsedUs(t);
  if (consumed !== 'allowed') {
    state.fire(approvalRule, consumed === 'rejected' ? await rejectionReason(deps.approvals, token, tenant) : CONSUME_REASONS[consumed]);
    return finish(check, 'deny', started, { timings });
  }
  state.fire(approvalRule, `approved call to '${work.tool.name}' (single-use token consumed)`);
  return finish(check, 'allow', started, { timings });
}
