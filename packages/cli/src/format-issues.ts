import type { FieldIssue, ValidationError } from '@guardagent/errors';

/** One issue as a line: `file:line:column: path: message` (what is known of it). */
export function formatIssue(issue: FieldIssue, source: string): string {
  const where = `${source}${issue.line ? `:${issue.line}${issue.column ? `:${issue.column}` : ''}` : ''}: `;
  const message = issue.message.replaceAll('\n', '\n    ');
  return `${where}${issue.path ? `${issue.path}: ` : ''}${message}`;
}

/** A validation error for a terminal: its code and what was invalid, then each issue on a line of its own. */
export function formatValidationError(error: ValidationError): string {
  const lines = error.issues.map((issue) => `  ${formatIssue(issue, error.what)}`);
  return `guardagent: ${error.code}: Invalid ${error.what}\n${lines.join('\n')}\n`;
}
