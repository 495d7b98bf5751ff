import type { M2wRecord } from './m2w-record';

/** Agent input exactly as the paper's harness built it: the task, then one `key: value` line per user_info field. */
export function buildAgentInput(record: Pick<M2wRecord, 'confirmed_task' | 'user_info'>): string {
  const lines = Object.entries(record.user_info).map(([key, value]) => `${key}: ${String(value)}`);
  return `Task: ${record.confirmed_task}\n\nuser_info:\n${lines.join('\n')}`;
}

/** SeeAct's output log: its analysis, the multiple-choice prompt, and its final answer. */
export function buildAgentOutput(record: Pick<M2wRecord, 'prompt' | 'gpt_output'>): string {
  const analysis = record.gpt_output[record.gpt_output.length - 2];
  const answer = record.gpt_output[record.gpt_output.length - 1];
  const choices = record.prompt[record.prompt.length - 1];
  return `(Next Action Based on Webpage and Analysis)\n${analysis}\n\n${choices}\n\n(Final Answer)\n${answer}`;
}

/**
 * The guard job for a record. Built from an explicit allow-list of fields so that the answers
 * (`label`, `violation`) and the metadata the agent never had (`domain`, `subdomain`, `website`,
 * ids, `target_action_reprs`) cannot reach the guard. The user's facts also travel as the
 * subject's attributes, as a deployment passes what it knows of the authenticated user: the
 * program trusts those over anything in the text the agent handles.
 */
export function m2wToJob(record: M2wRecord): { input: string; output: string; subject: { id: string; roles: string[]; attributes: Record<string, unknown> } } {
  return {
    input: buildAgentInput(record),
    output: buildAgentOutput(record),
    subject: { id: 'mind2web-sc-user', roles: [], attributes: { ...record.user_info } },
  };
}

/** Record fields that must never reach the guard: the answers, and metadata outside SeeAct's input/output. */
export const M2W_FORBIDDEN_FIELDS = [
  'label',
  'violation',
  'domain',
  'subdomain',
  'website',
  'annotation_id',
  'action_uid',
  'target_action_reprs',
] as const;
