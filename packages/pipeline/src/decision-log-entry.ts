import type { PipelineState } from '@guardagent/queue';
import { textOf, type Decision, type DecisionLogEntry } from '@guardagent/schemas';

/** Which decisions go to the decision log (GUARDAGENT_DECISION_LOG). */
export type DecisionLogMode = 'policies' | 'all' | 'off';

/** Entries bigger than this keep the decision but not the job (the log's size is bounded by entries). */
export const MAX_LOG_ENTRY_CHARS = 200_000;

/** Context keys never recorded: secrets a job carries for the guard, not about the action. */
const UNRECORDED_CONTEXT = new Set(['approvalToken']);

/** Whether this decision is recorded: the log is on for every policy, or for this one (a replayed check never is). */
export function recordsDecision(mode: DecisionLogMode | undefined, state: PipelineState): boolean {
  return state.purpose === 'check' && state.replayId === null && (mode === 'all' || (mode !== 'off' && state.logDecision));
}

/**
 * A decision log entry: the job as the guard saw it (the rails' redacted text instead of the
 * original, no approval token) and what decided it, by digest. A JSON input or output the rails
 * redacted is recorded as its redacted text. An entry over
 * MAX_LOG_ENTRY_CHARS keeps everything but the job (`job: null`, `jobOmitted` says why), so it
 * still counts in a diff but cannot be replayed.
 */
export function decisionLogEntry(state: PipelineState, decision: Decision): string {
  const { job } = state;
  const context = Object.fromEntries(Object.entries(job.context).filter(([key]) => !UNRECORDED_CONTEXT.has(key)));
  const redacted = decision.redacted;
  // The rails also put a message's redacted text under its side when the job's own field there
  // was empty: that copy is the message, recorded with the action, not the job's field.
  const side = (field: 'input' | 'output'): unknown => {
    const text = redacted?.[field];
    const copied = redacted?.message !== undefined && textOf(job[field]) === '';
    return text !== undefined && !copied ? text : job[field];
  };
  const recorded = {
    input: side('input'),
    output: side('output'),
    context,
    ...(job.subject ? { subject: job.subject } : {}),
    ...(job.action ? { action: redactedAction(job.action, decision) } : {}),
  };
  const entry: DecisionLogEntry = {
    id: decision.id,
    at: decision.createdAt,
    policy: decision.policy,
    job: state.jobStored && job.input === '' && job.output === '' ? null : recorded,
    decision: decision.decision,
    status: decision.status,
    layer: decision.layer,
    mode: decision.mode,
    reasons: decision.reasons,
    rules: decision.rules,
    ...(decision.error ? { error: decision.error } : {}),
    ...(decision.shadow ? { shadow: decision.shadow } : {}),
    timings: decision.timings,
  };
  const text = JSON.stringify(entry);
  if (text.length <= MAX_LOG_ENTRY_CHARS) return text;
  return JSON.stringify({ ...entry, job: null, jobOmitted: `the job is too large to record (${text.length} characters as JSON)` });
}

/** The action as the rails redacted it: a message's text (`redacted.message`), a tool call's arguments (`redacted.args`). */
function redactedAction(action: NonNullable<PipelineState['job']['action']>, decision: Decision): typeof action {
  const { message, args } = decision.redacted ?? {};
  if (action.kind === 'message' && message !== undefined) return { ...action, text: message };
  if (action.kind === 'tool_call' && args !== undefined) return { ...action, args: args as typeof action.args };
  return action;
}
