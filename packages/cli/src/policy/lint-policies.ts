import { EXIT_CODES, type ExitCode } from '@guardagent/client';
import { ValidationError, type FieldIssue } from '@guardagent/errors';
import { compileRails } from '@guardagent/rails';
import { formatIssue } from '../format-issues';
import { readPolicyFile } from '../policy-file';
import { policyPaths } from './policy-paths';
import { readTestsFile, testsFileOf } from './policy-tests-file';

interface FileLint {
  file: string;
  /** The policy's id, when the file could be read as a policy. */
  policy: string | null;
  ok: boolean;
  issues: Array<FieldIssue & { file: string }>;
  /** What was checked, for the summary line. */
  summary: string;
}

function issuesOf(error: unknown, file: string): Array<FieldIssue & { file: string }> {
  if (!(error instanceof ValidationError)) throw error;
  return error.issues.map((issue) => ({ ...issue, file: error.what || file }));
}

/** Lint one policy file and the tests file beside it. */
function lintFile(path: string, testsPath: string | undefined): FileLint {
  let policyFile: ReturnType<typeof readPolicyFile>;
  try {
    policyFile = readPolicyFile(path);
  } catch (error) {
    return { file: path, policy: null, ok: false, issues: issuesOf(error, path), summary: '' };
  }
  const { policy } = policyFile;
  const parts = [
    policy.rails ? `rails: ${compileRails(policy.rails).ruleCount} rules` : null,
    policy.requests?.trim() ? (policy.program ? 'guard requests and a program' : 'guard requests (no program: checks need an LLM until it is compiled)') : null,
    `${policy.examples.length} labelled example${policy.examples.length === 1 ? '' : 's'}`,
  ].filter((p): p is string => p !== null);
  const tests = testsFileOf(path, testsPath);
  if (tests !== null) {
    try {
      const { cases } = readTestsFile(tests, policy);
      parts.push(`${tests}: ${cases.length} case${cases.length === 1 ? '' : 's'}`);
    } catch (error) {
      return { file: path, policy: policy.id, ok: false, issues: issuesOf(error, tests), summary: parts.join('; ') };
    }
  }
  return { file: path, policy: policy.id, ok: true, issues: [], summary: parts.join('; ') };
}

/**
 * `guardagent policy lint`: each policy checked as the gateway checks one it stores (schema,
 * rails, references) and its tests file against it, without Redis or a gateway. Prints each
 * problem as `file:line:column: field: message`; exit 0 when all are clean, 1 when any has a
 * problem, 2 when the arguments name no policy.
 */
export function lintPolicies(args: readonly string[], options: { json?: boolean; tests?: string }): ExitCode {
  const paths = policyPaths(args);
  if (options.tests !== undefined && paths.length !== 1) {
    throw new ValidationError('arguments', [{ path: '--tests', message: '--tests names the cases of one policy: give one policy file with it' }]);
  }
  const results = paths.map((path) => lintFile(path, options.tests));
  const bad = results.filter((r) => !r.ok);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ok: bad.length === 0, files: results }, null, 2)}\n`);
  } else {
    for (const result of results) {
      if (result.ok) process.stdout.write(`ok    ${result.file} (${result.policy}: ${result.summary})\n`);
      else {
        process.stdout.write(`FAIL  ${result.file}${result.policy ? ` (${result.policy})` : ''}: ${result.issues.length} problem${result.issues.length === 1 ? '' : 's'}\n`);
        for (const issue of result.issues) process.stdout.write(`  ${formatIssue(issue, issue.file)}\n`);
      }
    }
    const count = bad.reduce((n, r) => n + r.issues.length, 0);
    process.stdout.write(
      bad.length === 0
        ? `${results.length} polic${results.length === 1 ? 'y' : 'ies'} checked: no problems\n`
        : `${results.length} polic${results.length === 1 ? 'y' : 'ies'} checked: ${count} problem${count === 1 ? '' : 's'} in ${bad.length}\n`,
    );
  }
  return bad.length === 0 ? EXIT_CODES.OK : EXIT_CODES.DENIED;
}
