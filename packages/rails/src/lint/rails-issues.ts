import { ValidationError, type FieldIssue } from '@guardagent/errors';
import { RailsConfigSchema, closestName, parseOrThrow, type Policy, type RailsConfig } from '@guardagent/schemas';
import { closeObjectSchemas, compileArgsSchema, createAjv } from '../args-schema';
import { celFunctionNames, compileCondition, isFieldIssue, parseConditionAst } from '../cel-conditions';
import { compileRails } from '../compile-rails';
import { referenceProblems } from './cel-references';
import { allowedFields, schemaIssues } from './schema-issues';

type ConditionList = 'authorize' | 'requireApproval';
/** The rule-id word of each condition list (`tools.x.approval.over-50`). */
const RULE_WORD: Record<ConditionList, string> = { authorize: 'authorize', requireApproval: 'approval' };

/**
 * Every mistake in a policy's `rails` that would otherwise surface only when a check runs: a CEL
 * condition that does not compile or names what is not there (an argument the tool's schema does
 * not allow, a subject field, an undeclared role, an unknown tool or function), an argument
 * schema Ajv refuses (unknown keyword, bad type, a pattern RE2 cannot run, an unknown format, a
 * required field it does not list), a rule id used twice, a tool with rules that no role may call.
 * Each issue names its field (`rails.tools.issue_refund.authorize[0].when`), the rule and the
 * mistake, with the closest known name where one is close ("did you mean 'amount'?").
 */
export function railsIssues(input: RailsConfig | unknown): FieldIssue[] {
  const rails: RailsConfig = parseOrThrow(RailsConfigSchema, input, 'rails', 'rails');
  const issues: FieldIssue[] = [];
  const roles = Object.keys(rails.roles);
  const ruled = Object.keys(rails.tools);
  const listedBy = new Map<string, string[]>();
  for (const [role, { tools }] of Object.entries(rails.roles)) {
    for (const tool of tools) listedBy.set(tool, [...(listedBy.get(tool) ?? []), role]);
  }
  const toolNames = [...new Set([...ruled, ...listedBy.keys()])];
  const functions = celFunctionNames();
  const ajv = createAjv();

  // The allow-list: a tool with rules that no role lists is denied on every call, and a role's
  // entry one slip from a tool with rules (which the role does not also list) is most likely it.
  const unreachable = new Set(ruled.filter((tool) => !listedBy.has(tool)));
  for (const [role, { tools }] of Object.entries(rails.roles)) {
    tools.forEach((tool, i) => {
      if (rails.tools[tool]) return;
      const meant = closestName(tool, ruled.filter((name) => !tools.includes(name)));
      if (meant === null) return;
      unreachable.delete(meant);
      const callers = listedBy.get(meant) ?? [];
      const elsewhere = callers.length > 0 ? `only ${callers.length === 1 ? 'role' : 'roles'} ${callers.join(', ')} may call '${meant}'` : `the rules of '${meant}' apply to no one (no role lists it)`;
      issues.push({
        path: `rails.roles.${role}.tools[${i}]`,
        message: `role '${role}' may call '${tool}', which has no rules, while ${elsewhere}; did you mean '${meant}'? (If '${tool}' is a tool of its own, give it an entry under rails.tools: '${tool}: {}'.)`,
      });
    });
  }
  for (const tool of unreachable) {
    issues.push({
      path: `rails.tools.${tool}`,
      message: `no role lists '${tool}' under rails.roles, so the allow-list denies every call of it and its rules never apply; add it to the tools of the roles that may call it`,
    });
  }

  for (const [tool, rule] of Object.entries(rails.tools)) {
    const argsPath = `rails.tools.${tool}.args`;
    let closedArgs: unknown = null;
    if (rule.args) {
      const found = schemaIssues(rule.args, argsPath);
      issues.push(...found);
      if (found.length === 0) {
        const compiled = compileArgsSchema(ajv, rule.args, argsPath);
        if (isFieldIssue(compiled)) issues.push(compiled);
        else closedArgs = closeObjectSchemas(rule.args);
      }
    }
    const seen = new Map<string, string>();
    for (const list of ['authorize', 'requireApproval'] as const) {
      rule[list].forEach((condition, i) => {
        const path = `rails.tools.${tool}.${list}[${i}]`;
        const name = `rule '${condition.id}' (tools.${tool}.${RULE_WORD[list]}.${condition.id})`;
        const earlier = seen.get(condition.id);
        if (earlier) issues.push({ path: `${path}.id`, message: `rule id '${condition.id}' of tool '${tool}' is used twice (also ${earlier}): the rule that fired could not be told apart` });
        seen.set(condition.id, path);
        const compiled = compileCondition(condition.when, `${path}.when`);
        if (isFieldIssue(compiled)) {
          const ast = parseConditionAst(condition.when);
          // A call of an unknown function fails the type check; say which name was meant.
          const unknownCall = ast ? referenceProblems(ast, { tool, argsFields: () => null, tools: toolNames, roles, functions }).find((p) => p.message.startsWith('unknown function')) : undefined;
          issues.push({ path: compiled.path, message: unknownCall ? `${name}, column ${unknownCall.at + 1}: invalid CEL expression: ${unknownCall.message}` : `${name}: ${compiled.message}` });
          return;
        }
        const ast = parseConditionAst(condition.when);
        if (!ast) return;
        const argsFields = (fields: readonly string[]) => (closedArgs === null ? null : allowedFields(closedArgs, fields));
        for (const problem of referenceProblems(ast, { tool, argsFields, tools: toolNames, roles, functions })) {
          issues.push({ path: `${path}.when`, message: `${name}, column ${problem.at + 1}: ${problem.message}` });
        }
      });
    }
  }

  // Whatever compileRails itself refuses (nothing, once the checks above pass; kept as the last word).
  if (issues.length === 0) {
    try {
      compileRails(rails);
    } catch (error) {
      if (error instanceof ValidationError) issues.push(...error.issues);
      else throw error;
    }
  }
  return issues;
}

/**
 * Refuse a policy whose rails would fail at check time (see railsIssues): a ValidationError
 * naming every mistake, so that storing it (PUT, the CLI, an inline policy) answers 400 instead
 * of every later check denying with guard_error.
 */
export function assertPolicyValid(policy: Policy, what = 'policy'): void {
  if (!policy.rails) return;
  const issues = railsIssues(policy.rails);
  if (issues.length > 0) throw new ValidationError(what, issues);
}
