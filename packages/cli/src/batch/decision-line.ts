import type { Decision } from '@guardagent/schemas';

/** One line of the --out file: the caller's id and what an operator needs from the decision. */
export interface DecisionLine {
  id: string;
  decision: Decision['decision'];
  status: Decision['status'];
  reasons: string[];
  /** Rail rule ids that fired. */
  rules: string[];
  layer: Decision['layer'];
  mode: Decision['mode'];
  details: Decision['details'];
  /** Why the guard could not decide (status guard_error only). */
  error?: { code: string; message: string };
}

/** The JSON text of one output line, newline included (a line is always written whole). */
export function decisionLine(id: string, decision: Decision): string {
  const line: DecisionLine = {
    id,
    decision: decision.decision,
    status: decision.status,
    reasons: decision.reasons,
    rules: decision.rules,
    layer: decision.layer,
    mode: decision.mode,
    details: decision.details,
    ...(decision.error ? { error: decision.error } : {}),
  };
  return `${JSON.stringify(line)}\n`;
}
