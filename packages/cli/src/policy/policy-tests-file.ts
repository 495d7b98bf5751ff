import { existsSync } from 'node:fs';
import { z } from 'zod';
import { ValidationError, type FieldIssue } from '@guardagent/errors';
import {
  ActionSchema,
  JsonObjectSchema,
  SubjectSchema,
  TextOrJsonSchema,
  didYouMean,
  listNames,
  parseYamlText,
  type Action,
  type Policy,
  type Subject,
  type TextOrJson,
  type YamlText,
} from '@guardagent/schemas';
import { readTextFile } from '../policy-file';

const DecisionSchema = z.enum(['allow', 'deny', 'pending']);

/** What a case expects: the decision, and optionally the status, rules, reasons and layer. */
const ExpectSchema = z.union([
  DecisionSchema,
  z
    .object({
      decision: DecisionSchema,
      /** `ok` unless said: a guard_error never passes a case by accident. */
      status: z.enum(['ok', 'guard_error']).default('ok'),
      /** A rule that must be among the decision's rules (`tools.issue_refund.approval.over-50`). */
      rule: z.string().min(1).optional(),
      /** Rules that must each be among the decision's rules. */
      rules: z.array(z.string().min(1)).optional(),
      /** Texts that must each appear in one of the decision's reasons. */
      reasons: z.array(z.string().min(1)).optional(),
      /** Which layer must have decided: the rails, or the guard program (guardagent). */
      layer: z.enum(['rails', 'guardagent', 'none']).optional(),
    })
    .strict(),
]);

const CaseSchema = z
  .object({
    name: z.string().min(1).max(500),
    input: TextOrJsonSchema.optional(),
    output: TextOrJsonSchema.optional(),
    context: JsonObjectSchema.optional(),
    subject: SubjectSchema.optional(),
    /** A tool call: `tool` and `args` (shorthand for `action: { kind: tool_call, tool, args }`). */
    tool: z.string().min(1).optional(),
    args: JsonObjectSchema.optional(),
    action: ActionSchema.optional(),
    /** Make the call this many times in a row (one subject's calls, in the case's own rate-limit windows); the last is checked. */
    repeat: z.number().int().min(1).max(100).default(1),
    expect: ExpectSchema,
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.action && (c.tool || c.args)) ctx.addIssue({ code: 'custom', path: ['tool'], message: 'give either action, or tool and args, not both' });
    if (c.args && !c.tool) ctx.addIssue({ code: 'custom', path: ['tool'], message: 'args need the tool they are for' });
  });

/** A policy's test cases, kept beside it as `<policy>.tests.yaml`. */
const PolicyTestsFileSchema = z
  .object({
    /** The policy these cases are for (its id); checked when given. */
    policy: z.string().min(1).optional(),
    /** Fields every case takes unless it gives its own (subject, context, input, output). */
    defaults: z
      .object({ subject: SubjectSchema.optional(), context: JsonObjectSchema.optional(), input: TextOrJsonSchema.optional(), output: TextOrJsonSchema.optional() })
      .strict()
      .default({}),
    cases: z.array(CaseSchema).min(1).max(10_000),
  })
  .strict();
type TestsFile = z.output<typeof PolicyTestsFileSchema>;
type Expectation = z.output<typeof ExpectSchema>;

/** One case to run: a guard job, what it must decide, and where it was written. */
export interface PolicyCase {
  name: string;
  /** `refund-desk.tests.yaml:14` or `refund-desk.yaml:40` (a labelled example). */
  source: string;
  kind: 'example' | 'test';
  job: { input: TextOrJson; output: TextOrJson; context: Record<string, unknown>; subject?: Subject; action?: Action };
  repeat: number;
  expect: {
    /** Decisions that pass (a labelled example with label 1 passes with deny or pending). */
    decisions: ReadonlyArray<'allow' | 'deny' | 'pending'>;
    status: 'ok' | 'guard_error';
    rules: string[];
    reasons: string[];
    layer?: string;
  };
}

/** `policies/refund-desk.yaml` → `policies/refund-desk.tests.yaml`. */
function testsFileFor(policyPath: string): string {
  const dot = policyPath.lastIndexOf('.');
  const slash = policyPath.lastIndexOf('/');
  return `${dot > slash ? policyPath.slice(0, dot) : policyPath}.tests.yaml`;
}

/** Whether a path names a tests file rather than a policy. */
export function isTestsFile(path: string): boolean {
  return path.endsWith('.tests.yaml') || path.endsWith('.tests.yml') || path.endsWith('.tests.json');
}

function expectationOf(expect: Expectation): PolicyCase['expect'] {
  if (typeof expect === 'string') return { decisions: [expect], status: 'ok', rules: [], reasons: [] };
  return {
    decisions: [expect.decision],
    status: expect.status,
    rules: [...(expect.rule ? [expect.rule] : []), ...(expect.rules ?? [])],
    reasons: expect.reasons ?? [],
    ...(expect.layer ? { layer: expect.layer } : {}),
  };
}

/** The rail rule ids a policy can fire for a tool (`tools.x.authorize.own-account`, …), by tool. */
function ruleIdsByTool(policy: Policy): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [tool, rule] of Object.entries(policy.rails?.tools ?? {})) {
    out.set(tool, [
      ...rule.authorize.map((c) => `tools.${tool}.authorize.${c.id}`),
      ...rule.requireApproval.map((c) => `tools.${tool}.approval.${c.id}`),
      `tools.${tool}.approval`,
      `tools.${tool}.args`,
      ...(rule.rateLimit ? [`tools.${tool}.rate-limit${rule.rateLimit.id ? `.${rule.rateLimit.id}` : ''}`] : []),
    ]);
  }
  return out;
}

/**
 * Names in the cases that are most likely slips of the policy's: a tool, a role, or an expected
 * rule one slip from one the policy has. An unknown name far from any is left alone (a case may
 * test that an unknown tool is denied).
 */
function referenceIssues(file: TestsFile, policy: Policy): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (file.policy !== undefined && file.policy !== policy.id) {
    issues.push({ path: 'policy', message: `these cases are for '${file.policy}', but the policy is '${policy.id}'` });
  }
  if (!policy.rails) return issues;
  const rules = ruleIdsByTool(policy);
  const tools = [...new Set([...Object.keys(policy.rails.tools), ...Object.values(policy.rails.roles).flatMap((r) => r.tools)])];
  const roles = Object.keys(policy.rails.roles);
  const slip = (name: string, known: readonly string[]) => (known.includes(name) ? '' : didYouMean(name, known));
  const checkSubject = (subject: Subject | undefined, path: string) =>
    subject?.roles.forEach((role, r) => {
      const hint = slip(role, roles);
      if (hint) issues.push({ path: `${path}.subject.roles[${r}]`, message: `'${role}' is not a role of the policy (${listNames(roles)})${hint}` });
    });
  checkSubject(file.defaults.subject, 'defaults');
  file.cases.forEach((c, i) => {
    const tool = c.tool ?? (c.action?.kind === 'tool_call' ? c.action.tool : undefined);
    const toolPath = c.tool ? `cases[${i}].tool` : `cases[${i}].action.tool`;
    if (tool !== undefined) {
      const hint = slip(tool, tools);
      if (hint) issues.push({ path: toolPath, message: `'${tool}' is not a tool of the policy${hint}` });
    }
    checkSubject(c.subject, `cases[${i}]`);
    if (typeof c.expect === 'string') return;
    const expected = [...(c.expect.rule ? [['rule', c.expect.rule] as const] : []), ...(c.expect.rules ?? []).map((r, j) => [`rules[${j}]`, r] as const)];
    for (const [field, rule] of expected) {
      const parts = rule.split('.');
      if (parts[0] !== 'tools' || parts.length < 3 || rule === 'tools.allowlist' || rule === 'tools.subject') continue;
      const known = rules.get(parts[1]!);
      if (!known) {
        const hint = slip(parts[1]!, tools);
        if (hint) issues.push({ path: `cases[${i}].expect.${field}`, message: `'${parts[1]}' in '${rule}' is not a tool of the policy${hint}` });
        continue;
      }
      if (!known.includes(rule)) issues.push({ path: `cases[${i}].expect.${field}`, message: `'${rule}' is not a rule of the policy (${listNames(known)})${didYouMean(rule, known)}` });
    }
  });
  return issues;
}

/** A tests file read and checked against its policy: its cases, or a ValidationError with every issue on its line. */
export function readTestsFile(path: string, policy: Policy): { cases: PolicyCase[]; text: YamlText } {
  const { value: file, text } = parseYamlText(PolicyTestsFileSchema, readTextFile(path, 'tests file'), path);
  const issues = referenceIssues(file, policy);
  if (issues.length > 0) throw new ValidationError(path, text.withLines(issues));
  const cases = file.cases.map((c, i): PolicyCase => {
    const action: Action | undefined = c.action ?? (c.tool ? { kind: 'tool_call', tool: c.tool, args: c.args ?? {} } : undefined);
    const subject = c.subject ?? file.defaults.subject;
    return {
      name: c.name,
      source: `${path}:${text.locate(`cases[${i}]`)?.line ?? '?'}`,
      kind: 'test',
      job: {
        input: c.input ?? file.defaults.input ?? '',
        output: c.output ?? file.defaults.output ?? '',
        context: { ...(file.defaults.context ?? {}), ...(c.context ?? {}) },
        ...(subject ? { subject } : {}),
        ...(action ? { action } : {}),
      },
      repeat: c.repeat,
      expect: expectationOf(c.expect),
    };
  });
  return { cases, text };
}

/** The policy's labelled examples as cases: label 0 must be allowed, label 1 denied or held. */
export function exampleCases(policy: Policy, policyPath: string, text: YamlText): PolicyCase[] {
  return policy.examples.map((example, i) => ({
    name: `example ${example.id ?? `#${i + 1}`} (label ${example.label})`,
    source: `${policyPath}:${text.locate(`examples[${i}]`)?.line ?? '?'}`,
    kind: 'example',
    job: {
      input: example.input,
      output: example.output,
      context: example.context ?? {},
      ...(example.subject ? { subject: example.subject } : {}),
      ...(example.action ? { action: example.action } : {}),
    },
    repeat: 1,
    expect: { decisions: example.label === 1 ? ['deny', 'pending'] : ['allow'], status: 'ok', rules: [], reasons: example.reasons ?? [] },
  }));
}

/** The tests file beside a policy, if there is one (or the one named). */
export function testsFileOf(policyPath: string, named?: string): string | null {
  if (named !== undefined) return named;
  const beside = testsFileFor(policyPath);
  return existsSync(beside) ? beside : null;
}
