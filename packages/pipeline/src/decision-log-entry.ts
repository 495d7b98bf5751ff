import type { PipelineState } from '@guardagent/queue';
import { INLINE_MAX_CHARS, RAILS_OFFLOAD_DEADLINE_MS, jsonChars, redactPiiDeep, takeTurn, type OffloadResult, type RailsOffload } from '@guardagent/rails';
import { jsonCharsOver, textOf, type Decision, type DecisionLogEntry } from '@guardagent/schemas';

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
 * redacted is recorded as its redacted text. Then, whatever the policy's own PII filters say,
 * every PII kind the rails know is redacted everywhere in the entry: input, output, tool
 * arguments, message, subject (attributes too), context, reasons, error and shadow reasons
 * (redactPiiDeep: strings, keys and long numbers). An entry over MAX_LOG_ENTRY_CHARS keeps
 * everything but the job (`job: null`, `jobOmitted` says why), so it still counts in a diff but
 * cannot be replayed; so does one whose job could not be redacted in time (fail closed: a job is
 * never recorded unredacted). A heavy job is redacted off the event loop (`offload`).
 */
export async function decisionLogEntry(state: PipelineState, decision: Decision, offload?: RailsOffload): Promise<string> {
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
  // What the decision says about the job is redacted in place (small: reasons are bounded by the verdict's size).
  const said = redactPiiDeep({
    reasons: decision.reasons,
    ...(decision.error ? { error: decision.error } : {}),
    ...(decision.shadow ? { shadow: decision.shadow } : {}),
  });
  const entry: DecisionLogEntry = {
    id: decision.id,
    at: decision.createdAt,
    policy: decision.policy,
    job: null,
    decision: decision.decision,
    status: decision.status,
    layer: decision.layer,
    mode: decision.mode,
    reasons: said.reasons,
    rules: decision.rules,
    ...(said.error ? { error: said.error } : {}),
    ...(said.shadow ? { shadow: said.shadow } : {}),
    timings: decision.timings,
    traceId: decision.traceId,
  };
  if (state.jobStored && job.input === '' && job.output === '') return JSON.stringify(entry);
  // Too large to record: no need to read it.
  if (jsonCharsOver(recorded, MAX_LOG_ENTRY_CHARS)) return omitted(entry, 'the job is too large to record');
  const clean = await redactRecord(recorded, offload);
  if (!clean.ok) return omitted(entry, `the job could not be redacted (${clean.message})`);
  const text = JSON.stringify({ ...entry, job: clean.value });
  if (text.length <= MAX_LOG_ENTRY_CHARS) return text;
  return omitted(entry, `the job is too large to record (${text.length} characters as JSON)`);
}

const omitted = (entry: DecisionLogEntry, why: string): string => JSON.stringify({ ...entry, job: null, jobOmitted: why });

/** redactPiiDeep inline for a light record (taking its turn of the event loop), off the loop for a heavy one. */
async function redactRecord<T>(value: T, offload: RailsOffload | undefined): Promise<OffloadResult<T>> {
  const weight = jsonChars(value, INLINE_MAX_CHARS);
  if (!offload || weight <= INLINE_MAX_CHARS) {
    await takeTurn(weight);
    return { ok: true, value: redactPiiDeep(value) };
  }
  return offload.redact(value, RAILS_OFFLOAD_DEADLINE_MS);
}

/** The action as the rails redacted it: a message's text (`redacted.message`), a tool call's arguments (`redacted.args`). */
function redactedAction(action: NonNullable<PipelineState['job']['action']>, decision: Decision): typeof action {
  const { message, args } = decision.redacted ?? {};
  if (action.kind === 'message' && message !== undefined) return { ...action, text: message };
  if (action.kind === 'tool_call' && args !== undefined) return { ...action, args: args as typeof action.args };
  return action;
}
