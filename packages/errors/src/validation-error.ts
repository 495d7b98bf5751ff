import { GuardAgentError } from './guard-agent-error';

export interface FieldIssue {
  /** Dotted path of the offending field, e.g. `policy.requests` or `jobs[3].input`. */
  path: string;
  message: string;
  /** Where the field is in the file it came from (1-based), when it came from a file. */
  line?: number;
  column?: number;
}

/** Input failed schema validation; `issues` names every offending field. */
export class ValidationError extends GuardAgentError {
  readonly code = 'VALIDATION_FAILED';
  readonly issues: FieldIssue[];
  /** What was invalid: `policy`, `guard job`, or the file's name. */
  readonly what: string;

  constructor(what: string, issues: FieldIssue[]) {
    const summary = issues.map((i) => `${i.path || '(root)'}${i.line ? ` (line ${i.line})` : ''}: ${i.message}`).join('; ');
    super(`Invalid ${what}: ${summary}`, { issues });
    this.issues = issues;
    this.what = what;
  }
}
