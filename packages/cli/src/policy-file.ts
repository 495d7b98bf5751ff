import { readFileSync } from 'node:fs';
import { ValidationError } from '@guardagent/errors';
import { railsIssues } from '@guardagent/rails';
import { readPolicyText, type Policy, type YamlText } from '@guardagent/schemas';

export interface PolicyFile {
  path: string;
  policy: Policy;
  /** The file's text, which places a field path on its line. */
  text: YamlText;
}

/** A file's text, or a ValidationError naming the file when it cannot be read. */
export function readTextFile(path: string, what = 'file'): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ValidationError(path, [{ path: '', message: `cannot read the ${what}: ${(error as Error).message}` }]);
  }
}

/**
 * Read and check a policy file as the gateway checks a policy it stores: the schema (unknown
 * fields and values with the closest known one), then the rails (CEL conditions, argument schemas,
 * patterns, references to roles, tools and arguments). Every mistake is in one ValidationError,
 * each with its field, line and column.
 */
export function readPolicyFile(path: string): PolicyFile {
  const { policy, text } = readPolicyText(readTextFile(path, 'policy'), path);
  const issues = policy.rails ? railsIssues(policy.rails) : [];
  if (issues.length > 0) throw new ValidationError(path, text.withLines(issues));
  return { path, policy, text };
}
