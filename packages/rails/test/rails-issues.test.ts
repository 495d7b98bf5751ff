import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '@guardagent/errors';
import { parsePolicyText, type RailsConfig } from '@guardagent/schemas';
import { assertPolicyValid, railsIssues } from '../src/index';

const POLICIES = join(import.meta.dirname, '..', '..', '..', 'examples', 'policies');
const refundDesk = () => parsePolicyText(readFileSync(join(POLICIES, 'refund-desk.yaml'), 'utf8'), 'refund-desk.yaml');
/** refund-desk's rails with one change made by `edit`. */
function railsWith(edit: (rails: RailsConfig) => void): RailsConfig {
  const rails = structuredClone(refundDesk().rails!);
  edit(rails);
  return rails;
}
const only = (rails: RailsConfig) => {
  const issues = railsIssues(rails);
  expect(issues, JSON.stringify(issues)).toHaveLength(1);
  return issues[0]!;
};

describe('railsIssues: what would fail at check time, found when the policy is stored', () => {
  it('passes every bundled policy', () => {
    for (const file of readdirSync(POLICIES).filter((name) => !name.includes('.tests.'))) {
      const policy = parsePolicyText(readFileSync(join(POLICIES, file), 'utf8'), file);
      if (policy.rails) expect(railsIssues(policy.rails), file).toEqual([]);
    }
  });

  it('a CEL condition that does not parse: the rule, the field and the column', () => {
    const issue = only(railsWith((r) => (r.tools.send_email!.authorize[0]!.when = 'args.to == &&')));
    expect(issue.path).toBe('rails.tools.send_email.authorize[0].when');
    expect(issue.message).toMatch(/^rule 'own-address' \(tools\.send_email\.authorize\.own-address\): invalid CEL expression: Unexpected token.*\(at column 12 of the expression\)/);
  });

  it('an argument the schema does not allow, with the closest one', () => {
    const issue = only(railsWith((r) => (r.tools.issue_refund!.requireApproval[0]!.when = 'args.amout > 50')));
    expect(issue.path).toBe('rails.tools.issue_refund.requireApproval[0].when');
    expect(issue.message).toBe(
      "rule 'over-50' (tools.issue_refund.approval.over-50), column 1: unknown argument 'amout': the args schema of 'issue_refund' has user_id, amount, reason, so it is never there; did you mean 'amount'?",
    );
  });

  it('a field subject does not have, an undeclared role, an unknown tool, an unknown function', () => {
    expect(only(railsWith((r) => (r.tools.read_account!.authorize[0]!.when = 'args.user_id == subject.ide'))).message).toMatch(
      /column 17: subject has no field 'ide' \(it has id, roles, attributes\); did you mean 'id'\?$/,
    );
    const role = only(railsWith((r) => (r.tools.read_account!.authorize[0]!.when = '"superviser" in subject.roles || args.user_id == subject.id')));
    expect(role.message).toMatch(/'superviser' is not a role of rails\.roles \(support_agent, supervisor\): declare it there .*; did you mean 'supervisor'\?$/);
    // Roles compared inside a macro count too.
    expect(only(railsWith((r) => (r.tools.read_account!.authorize[0]!.when = 'subject.roles.exists(x, x == "suport_agent")'))).message).toMatch(/did you mean 'support_agent'\?$/);
    expect(only(railsWith((r) => (r.tools.read_account!.authorize[0]!.when = 'tool == "read_acount"'))).message).toMatch(
      /'read_acount' is not a tool this policy names \(rails\.tools, rails\.roles\); did you mean 'read_account'\?$/,
    );
    const fn = only(railsWith((r) => (r.tools.read_account!.authorize[0]!.when = 'args.user_id.startWith("c")')));
    expect(fn.message).toMatch(/invalid CEL expression: unknown function 'startWith'; did you mean 'startsWith'\?$/);
  });

  it('an argument schema Ajv would refuse, at the keyword: unknown keyword, type, format, required', () => {
    const keyword = only(railsWith((r) => ((r.tools.send_email!.args!.properties as Record<string, Record<string, unknown>>).subject!.maxLenght = 3)));
    expect(keyword).toEqual({ path: 'rails.tools.send_email.args.properties.subject.maxLenght', message: "unknown JSON Schema keyword 'maxLenght'; did you mean 'maxLength'?" });
    const type = only(railsWith((r) => ((r.tools.send_email!.args!.properties as Record<string, Record<string, unknown>>).body!.type = 'strng')));
    expect(type.path).toBe('rails.tools.send_email.args.properties.body.type');
    expect(type.message).toMatch(/'strng' is not a JSON Schema type .*; did you mean 'string'\?$/);
    const format = only(railsWith((r) => ((r.tools.send_email!.args!.properties as Record<string, Record<string, unknown>>).to!.format = 'emial')));
    expect(format.message).toMatch(/unknown format 'emial' .*did you mean 'email'\?$/);
    const required = only(railsWith((r) => (r.tools.delete_user!.args!.required = ['userid'])));
    expect(required).toMatchObject({ path: 'rails.tools.delete_user.args.required[0]' });
    expect(required.message).toMatch(/required 'userid' is not among the properties \(user_id\), so no call can pass; did you mean 'user_id'\?$/);
  });

  it('a pattern the linear-time engine cannot run: in a schema and in matches()', () => {
    const schema = only(railsWith((r) => ((r.tools.delete_user!.args!.properties as Record<string, Record<string, unknown>>).user_id!.pattern = '^(a)\\1$')));
    expect(schema.path).toBe('rails.tools.delete_user.args.properties.user_id.pattern');
    expect(schema.message).toMatch(/not supported.*no backreferences or lookaround/);
    const cel = only(railsWith((r) => (r.tools.read_account!.authorize[0]!.when = 'args.user_id.matches("(?=c)c")')));
    expect(cel.path).toBe('rails.tools.read_account.authorize[0].when');
    expect(cel.message).toMatch(/^rule 'own-account' .*matches\(\): pattern .* is not supported/);
  });

  it('references between roles and tools: rules no role reaches, and a role entry one slip from a tool with rules', () => {
    const unreachable = only(railsWith((r) => (r.roles.supervisor!.tools = r.roles.supervisor!.tools.filter((t) => t !== 'delete_user'))));
    expect(unreachable.path).toBe('rails.tools.delete_user');
    expect(unreachable.message).toMatch(/no role lists 'delete_user' under rails\.roles, so the allow-list denies every call of it/);
    const slip = only(railsWith((r) => (r.roles.supervisor!.tools[3] = 'delete_usr')));
    expect(slip.path).toBe('rails.roles.supervisor.tools[3]');
    expect(slip.message).toMatch(/did you mean 'delete_user'\?/);
    // A role's own slip while another role lists the tool: that role alone cannot call it.
    const partial = only(railsWith((r) => (r.roles.support_agent!.tools[0] = 'read_acount')));
    expect(partial.message).toMatch(/while only role supervisor may call 'read_account'; did you mean 'read_account'\?/);
    // A tool of its own, declared as such, is no slip.
    expect(railsIssues(railsWith((r) => {
      r.roles.support_agent!.tools.push('read_accounts');
      r.tools.read_accounts = { authorize: [], requireApproval: [] };
    }))).toEqual([]);
  });

  it('a rule id used twice in one tool', () => {
    const issue = only(railsWith((r) => r.tools.issue_refund!.requireApproval.push({ id: 'own-account', when: 'true', message: 'x' })));
    expect(issue.path).toBe('rails.tools.issue_refund.requireApproval[1].id');
    expect(issue.message).toMatch(/rule id 'own-account' of tool 'issue_refund' is used twice/);
  });

  it('reports every mistake at once, and assertPolicyValid refuses the policy with all of them', () => {
    const policy = { ...refundDesk(), rails: railsWith((r) => {
      r.tools.issue_refund!.requireApproval[0]!.when = 'args.amout > 50';
      r.tools.send_email!.authorize[0]!.when = 'args.to == &&';
    }) };
    let caught: unknown;
    try {
      assertPolicyValid(policy);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).issues.map((i) => i.path).sort()).toEqual(['rails.tools.issue_refund.requireApproval[0].when', 'rails.tools.send_email.authorize[0].when']);
    expect(() => assertPolicyValid(refundDesk())).not.toThrow();
  });

  it('leaves alone what it cannot know: open schemas, attributes, iteration variables, optional fields', () => {
    const rails = railsWith((r) => {
      r.tools.read_account!.args = { type: 'object', additionalProperties: true, properties: { user_id: { type: 'string' } } };
      r.tools.read_account!.authorize[0]!.when = 'has(args.anything) || subject.attributes.tier == "gold" || [1, 2].exists(n, n > 1)';
    });
    expect(railsIssues(rails)).toEqual([]);
  });
});
