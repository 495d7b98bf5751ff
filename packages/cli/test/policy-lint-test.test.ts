import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '@guardagent/client';

const BIN = join(import.meta.dirname, '..', 'bin', 'guardagent.mjs');
const POLICIES = join(import.meta.dirname, '..', '..', '..', 'examples', 'policies');
const dir = mkdtempSync(join(tmpdir(), 'guardagent-policy-'));

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, GUARDAGENT_LLM_BASE_URL: '', ...env }, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A folder holding refund-desk.yaml and its tests file, the policy (or tests) edited by `edit`. */
function deskCopy(name: string, edit: { policy?: (text: string) => string; tests?: (text: string) => string } = {}): string {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  const policy = readFileSync(join(POLICIES, 'refund-desk.yaml'), 'utf8');
  const tests = readFileSync(join(POLICIES, 'refund-desk.tests.yaml'), 'utf8');
  writeFileSync(join(folder, 'refund-desk.yaml'), edit.policy ? edit.policy(policy) : policy);
  writeFileSync(join(folder, 'refund-desk.tests.yaml'), edit.tests ? edit.tests(tests) : tests);
  return join(folder, 'refund-desk.yaml');
}

/** The line of the first occurrence of `text` in a file (1-based). */
const lineOf = (file: string, text: string) => readFileSync(file, 'utf8').split('\n').findIndex((line) => line.includes(text)) + 1;

describe('guardagent policy lint', () => {
  it('passes the bundled policies and their tests files (a directory stands for its policies)', async () => {
    const result = await run(['policy', 'lint', POLICIES]);
    expect(result.code, result.stdout + result.stderr).toBe(EXIT_CODES.OK);
    expect(result.stdout).toMatch(/^ok {4}.*refund-desk\.yaml \(refund-desk: rails: \d+ rules; 0 labelled examples; .*refund-desk\.tests\.yaml: 11 cases\)$/m);
    expect(result.stdout).toMatch(/3 policies checked: no problems/);
  });

  it('names each mistake with file, line, column, the rule and the closest name; exit 1', async () => {
    const policy = deskCopy('lint-bad', {
      policy: (t) => t.replace('when: args.amount > 50', 'when: args.amout > 50').replace('format: email', 'format: emial').replace('failMode: closed', 'failMod: closed'),
    });
    const result = await run(['policy', 'lint', policy]);
    expect(result.code, result.stderr).toBe(EXIT_CODES.DENIED);
    // The schema first: an unknown field is reported before the rails are compiled.
    expect(result.stdout).toContain(`${policy}:${lineOf(policy, 'failMod:')}:1: failMod: unknown field 'failMod'; did you mean 'failMode'?`);

    const rails = deskCopy('lint-rails', { policy: (t) => t.replace('when: args.amount > 50', 'when: args.amout > 50').replace('format: email', 'format: emial') });
    const second = await run(['policy', 'lint', '--json', rails]);
    expect(second.code).toBe(EXIT_CODES.DENIED);
    const report = JSON.parse(second.stdout);
    expect(report.ok).toBe(false);
    expect(report.files[0].issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'rails.tools.issue_refund.requireApproval[0].when', line: lineOf(rails, 'args.amout'), message: expect.stringMatching(/^rule 'over-50' .*did you mean 'amount'\?$/) }),
        expect.objectContaining({ path: 'rails.tools.send_email.args.properties.to.format', line: lineOf(rails, 'emial'), message: expect.stringMatching(/did you mean 'email'\?$/) }),
      ]),
    );
  });

  it("checks the tests file against its policy: a tool or rule one slip from the policy's", async () => {
    const policy = deskCopy('lint-tests', { tests: (t) => t.replace('tool: send_email', 'tool: send_emial').replace('rule: tools.issue_refund.approval.over-50', 'rule: tools.issue_refund.approval.over-5') });
    const tests = policy.replace('.yaml', '.tests.yaml');
    const result = await run(['policy', 'lint', tests]);
    expect(result.code).toBe(EXIT_CODES.DENIED);
    expect(result.stdout).toContain(`${tests}:${lineOf(tests, 'send_emial')}:5: cases[7].tool: 'send_emial' is not a tool of the policy; did you mean 'send_email'?`);
    expect(result.stdout).toMatch(/cases\[4\]\.expect\.rule: 'tools\.issue_refund\.approval\.over-5' is not a rule of the policy .*did you mean 'tools\.issue_refund\.approval\.over-50'\?/);
    const unknownField = deskCopy('lint-tests-field', { tests: (t) => t.replace('repeat: 6', 'repaet: 6') });
    expect((await run(['policy', 'lint', unknownField])).stdout).toMatch(/cases\[6\]\.repaet: unknown field 'repaet'; did you mean 'repeat'\?/);
  });

  it('exits 2 for a path that does not exist', async () => {
    const result = await run(['policy', 'lint', join(dir, 'nope.yaml')]);
    expect(result.code).toBe(EXIT_CODES.INVALID);
    expect(result.stderr).toMatch(/nope\.yaml: no such file or directory/);
  });
});

describe('guardagent policy test', () => {
  it("runs refund-desk's cases through the rails on a private Redis: all pass, exit 0", async () => {
    const result = await run(['policy', 'test', join(POLICIES, 'refund-desk.yaml')], { REDIS_URL: '' });
    expect(result.code, result.stdout + result.stderr).toBe(EXIT_CODES.OK);
    expect(result.stdout).toMatch(/refund-desk\.yaml \(refund-desk\): 11 passed, 0 failed \(0 examples, 11 tests in .*refund-desk\.tests\.yaml\)/);
  });

  it('catches a rule that stops matching: the failing case with its line and a diff, exit 1', async () => {
    // The approval threshold moved from 50 to 500: the "over 50" case is now allowed.
    const policy = deskCopy('threshold', { policy: (t) => t.replace('when: args.amount > 50', 'when: args.amount > 500') });
    const tests = policy.replace('.yaml', '.tests.yaml');
    const result = await run(['policy', 'test', policy], { REDIS_URL: '' });
    expect(result.code, result.stderr).toBe(EXIT_CODES.DENIED);
    const caseLine = lineOf(tests, "refunds over 50 wait for a supervisor's approval");
    expect(result.stdout).toContain(
      [
        `FAIL  ${tests}:${caseLine}  refunds over 50 wait for a supervisor's approval`,
        '  - decision: pending',
        '  + decision: allow',
        '    status: ok',
        '  - rules include: "tools.issue_refund.approval.over-50"',
        '  + rules: (none)',
      ].join('\n'),
    );
    expect(result.stdout).toMatch(/10 passed, 1 failed/);

    const json = JSON.parse((await run(['policy', 'test', '--json', policy], { REDIS_URL: '' })).stdout);
    const failed = json.policies[0].cases.filter((c: { pass: boolean }) => !c.pass);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ name: "refunds over 50 wait for a supervisor's approval", actual: { decision: 'allow', status: 'ok' }, expected: { decisions: ['pending'] } });
  });

  it("runs a policy's program on its labelled examples in the sandbox: a wrong label fails with the program's reasons", async () => {
    const policy = join(dir, 'hotels.yaml');
    writeFileSync(
      policy,
      `id: hotels
requests: Users under 18 cannot book a hotel.
mode: compiled
program: |
  const age = Number((/age: (\\d+)/.exec(input) || [])[1]);
  return age < 18 ? { deny: true, reasons: ['under 18'] } : { deny: false, reasons: [] };
examples:
  - { id: minor, input: "age: 12", label: 1, reasons: [under 18] }
  - { id: adult, input: "age: 32", label: 0 }
  - { id: wrong, input: "age: 40", label: 1 }
`,
    );
    const result = await run(['policy', 'test', policy], { REDIS_URL: '' });
    expect(result.code, result.stderr).toBe(EXIT_CODES.DENIED);
    expect(result.stdout).toContain(`FAIL  ${policy}:${lineOf(policy, 'id: wrong')}  example wrong (label 1)\n  - decision: deny or pending\n  + decision: allow`);
    expect(result.stdout).toMatch(/hotels\.yaml \(hotels\): 2 passed, 1 failed \(3 examples, 0 tests\)/);
  });

  it('refuses what it cannot run: guard requests without a program and no LLM (2), an invalid tests file (2), no cases (1)', async () => {
    const llm = join(dir, 'needs-llm.yaml');
    writeFileSync(llm, 'id: needs-llm\nrequests: Deny refunds to other accounts.\nexamples:\n  - { input: x, label: 0 }\n');
    const noLlm = await run(['policy', 'test', llm], { REDIS_URL: '' });
    expect(noLlm.code).toBe(EXIT_CODES.INVALID);
    expect(noLlm.stderr).toMatch(/guard requests without a program, so its checks need an LLM/);

    const bad = deskCopy('bad-tests', { tests: (t) => t.replace('expect: allow', 'expect: alow') });
    const invalid = await run(['policy', 'test', bad], { REDIS_URL: '' });
    expect(invalid.code).toBe(EXIT_CODES.INVALID);
    expect(invalid.stderr).toMatch(/refund-desk\.tests\.yaml:\d+:\d+: cases\[2\]\.expect: /);

    const empty = join(dir, 'empty');
    mkdirSync(empty);
    copyFileSync(join(POLICIES, 'refund-desk.yaml'), join(empty, 'refund-desk.yaml'));
    const none = await run(['policy', 'test', join(empty, 'refund-desk.yaml')], { REDIS_URL: '' });
    expect(none.code).toBe(EXIT_CODES.DENIED);
    expect(none.stdout).toMatch(/no cases: add labelled examples, or cases in a tests file beside it/);
  });
});
