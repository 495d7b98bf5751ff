import { randomUUID } from 'node:crypto';
import { EXIT_CODES, type ExitCode } from '@guardagent/client';
import { envName, readEnv } from '@guardagent/config';
import { ConfigError, ValidationError, errorMessage } from '@guardagent/errors';
import type { Decision, Policy } from '@guardagent/schemas';
import { startLocalStack, type LocalStack } from '../local-stack';
import { readPolicyFile } from '../policy-file';
import { policyPaths } from './policy-paths';
import { exampleCases, readTestsFile, testsFileOf, type PolicyCase } from './policy-tests-file';

/** One case's outcome: what was decided, and the lines of the diff when it is not what was expected. */
interface CaseResult {
  name: string;
  source: string;
  kind: PolicyCase['kind'];
  pass: boolean;
  expected: PolicyCase['expect'];
  actual: Pick<Decision, 'decision' | 'status' | 'layer' | 'rules' | 'reasons'> & { error?: { code: string; message: string } };
  diff: string[];
}

interface PolicyReport {
  file: string;
  policy: string;
  testsFile: string | null;
  passed: number;
  failed: number;
  cases: CaseResult[];
}

/** Does the policy's check path need the LLM (guard requests that no program of its answers)? */
function needsLlm(policy: Policy): boolean {
  if (!policy.requests?.trim()) return false;
  return !policy.program || policy.mode === 'per-request';
}

const list = (items: readonly string[]) => (items.length === 0 ? '(none)' : items.map((i) => JSON.stringify(i)).join(', '));

/** Compare a decision with a case's expectation: whether it passes, and a diff (`-` expected, `+` decided, two spaces: as expected). */
function compareDecision(expected: PolicyCase['expect'], actual: CaseResult['actual']): { pass: boolean; diff: string[] } {
  const diff: string[] = [];
  let pass = true;
  const field = (ok: boolean, want: string, got: string) => {
    if (ok) diff.push(`    ${got}`);
    else {
      pass = false;
      diff.push(`  - ${want}`, `  + ${got}`);
    }
  };
  field(expected.decisions.includes(actual.decision), `decision: ${expected.decisions.join(' or ')}`, `decision: ${actual.decision}`);
  field(actual.status === expected.status, `status: ${expected.status}`, `status: ${actual.status}${actual.error ? ` (${actual.error.code}: ${actual.error.message})` : ''}`);
  if (expected.layer !== undefined) field(actual.layer === expected.layer, `layer: ${expected.layer}`, `layer: ${actual.layer}`);
  const missingRules = expected.rules.filter((rule) => !actual.rules.includes(rule));
  if (expected.rules.length > 0) field(missingRules.length === 0, `rules include: ${list(expected.rules)}`, `rules: ${list(actual.rules)}`);
  const missingReasons = expected.reasons.filter((want) => !actual.reasons.some((reason) => reason.includes(want)));
  if (expected.reasons.length > 0) field(missingReasons.length === 0, `reasons mention: ${list(expected.reasons)}`, `reasons: ${list(actual.reasons)}`);
  // What the guard said, for context, when the case failed and it was not shown already.
  if (!pass && expected.rules.length === 0) diff.push(`    rules: ${list(actual.rules)}`);
  if (!pass && expected.reasons.length === 0) diff.push(`    reasons: ${list(actual.reasons)}`);
  return { pass, diff };
}

/** Run one case: its calls in a row, in windows of its own; the last decision is compared. */
async function runCase(stack: LocalStack, policyId: string, testCase: PolicyCase, timeoutMs: number): Promise<CaseResult> {
  const replayId = `policy-test-${randomUUID()}`;
  let decision: Decision | null = null;
  for (let i = 0; i < testCase.repeat; i++) {
    decision = await stack.client.check({ policy: policyId, ...testCase.job }, { timeoutMs, replayId });
  }
  const d = decision as Decision;
  const actual: CaseResult['actual'] = { decision: d.decision, status: d.status, layer: d.layer, rules: d.rules, reasons: d.reasons, ...(d.error ? { error: { code: d.error.code, message: d.error.message } } : {}) };
  const { pass, diff } = compareDecision(testCase.expect, actual);
  return { name: testCase.name, source: testCase.source, kind: testCase.kind, pass, expected: testCase.expect, actual, diff };
}

/** At most this many cases of a policy run at once (each its own checks, in its own windows). */
const CASE_CONCURRENCY = 8;

async function runPolicy(stack: LocalStack, path: string, testsPath: string | undefined, options: { examples: boolean; timeoutMs: number }): Promise<PolicyReport> {
  const { policy, text } = readPolicyFile(path);
  const testsFile = testsFileOf(path, testsPath);
  const cases = [...(options.examples ? exampleCases(policy, path, text) : []), ...(testsFile ? readTestsFile(testsFile, policy).cases : [])];
  // Tested as the version that decides: a shadow version is put as an enforcing one here.
  const { enforcement: _shadow, ...enforcing } = policy;
  const registered = await stack.client.putPolicy(enforcing);
  if (enforcing.program && enforcing.mode !== 'per-request') {
    // The program decides every case, verified or not: the cases (its labelled examples among
    // them) are its verification here, each reported on its own.
    const shard = stack.runtime!.shardOf(stack.client.tenant);
    const { programDigest } = await shard.deps.policies.getByDigest(stack.client.tenant, registered.digest);
    await shard.deps.programs.promote(stack.client.tenant, {
      code: enforcing.program,
      plan: null,
      source: 'supplied',
      policyId: policy.id,
      policyVersion: policy.version,
      programDigest,
      report: { passed: true, total: 0, passedCount: 0, failing: [], verifiedAt: new Date().toISOString() },
      promotedAt: new Date().toISOString(),
    });
  }
  const results: CaseResult[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const index = next++;
      results[index] = await runCase(stack, policy.id, cases[index]!, options.timeoutMs);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CASE_CONCURRENCY, cases.length) }, worker));
  const failed = results.filter((r) => !r.pass).length;
  return { file: path, policy: policy.id, testsFile, passed: results.length - failed, failed, cases: results };
}

function printReport(report: PolicyReport): void {
  for (const result of report.cases) {
    if (result.pass) continue;
    process.stdout.write(`FAIL  ${result.source}  ${result.name}\n${result.diff.join('\n')}\n`);
  }
  const examples = report.cases.filter((c) => c.kind === 'example').length;
  const what = `${examples} example${examples === 1 ? '' : 's'}, ${report.cases.length - examples} test${report.cases.length - examples === 1 ? '' : 's'}${report.testsFile ? ` in ${report.testsFile}` : ''}`;
  const status = report.cases.length === 0 ? 'FAIL' : report.failed > 0 ? 'FAIL' : 'ok  ';
  const counts = report.cases.length === 0 ? 'no cases: add labelled examples, or cases in a tests file beside it' : `${report.passed} passed, ${report.failed} failed (${what})`;
  process.stdout.write(`${status}  ${report.file} (${report.policy}): ${counts}\n`);
}

/**
 * `guardagent policy test`: every policy's labelled examples and the cases of its tests file run as
 * checks through the real pipeline (rails, then its program in the sandbox, or the LLM when the
 * policy needs one and one is configured), on a private redis-server and workers of its own (never
 * REDIS_URL: nothing is registered on a deployment). Each case runs in rate-limit windows of its
 * own. Prints a diff for each case that does not decide as expected; exit 0 when all pass, 1 when
 * any fails (or a policy has no cases), 2 when a file is invalid.
 */
export async function testPolicies(args: readonly string[], options: { json?: boolean; tests?: string; examples: boolean; timeoutMs: number }): Promise<ExitCode> {
  const paths = policyPaths(args);
  if (options.tests !== undefined && paths.length !== 1) {
    throw new ValidationError('arguments', [{ path: '--tests', message: '--tests names the cases of one policy: give one policy file with it' }]);
  }
  // Every file is read and checked before anything starts: a mistake is reported at once, with its line.
  const policies = paths.map((path) => readPolicyFile(path).policy);
  paths.forEach((path, i) => {
    const tests = testsFileOf(path, options.tests);
    if (tests) readTestsFile(tests, policies[i]!);
  });
  const llm = policies.some(needsLlm);
  if (llm && !readEnv('llm.baseUrl')) {
    const names = paths.filter((_p, i) => needsLlm(policies[i]!));
    throw new ConfigError(
      `${names.join(', ')}: guard requests without a program, so its checks need an LLM: set ${envName('llm.baseUrl')} and ${envName('llm.model')}, or compile the policy (guardagent compile) and keep its program in the file`,
    );
  }
  const stack = await startLocalStack({ privateRedis: true, stages: llm ? undefined : ['executor'], serviceName: 'guardagent-policy-test', tenant: 'policy-test' });
  const reports: PolicyReport[] = [];
  try {
    for (const path of paths) {
      try {
        reports.push(await runPolicy(stack, path, options.tests, options));
      } catch (error) {
        if (error instanceof ValidationError) throw error;
        throw new Error(`${path}: ${errorMessage(error)}`, { cause: error });
      }
      if (!options.json) printReport(reports.at(-1)!);
    }
  } finally {
    await stack.stop();
  }
  const failed = reports.filter((r) => r.failed > 0 || r.cases.length === 0);
  if (options.json) process.stdout.write(`${JSON.stringify({ ok: failed.length === 0, policies: reports }, null, 2)}\n`);
  else {
    const cases = reports.reduce((n, r) => n + r.cases.length, 0);
    const failedCases = reports.reduce((n, r) => n + r.failed, 0);
    process.stdout.write(`${reports.length} polic${reports.length === 1 ? 'y' : 'ies'}, ${cases} case${cases === 1 ? '' : 's'}: ${cases - failedCases} passed, ${failedCases} failed\n`);
  }
  return failed.length === 0 ? EXIT_CODES.OK : EXIT_CODES.DENIED;
}
