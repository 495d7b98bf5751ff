import { describe, expect, it } from 'vitest';
import { ValidationError } from '@guardagent/errors';
import { compileCondition, isFieldIssue, runCondition, type Condition } from '../src/cel-conditions';
import { compileArgsSchema, createAjv } from '../src/args-schema';
import { compileRails } from '../src/index';

// Tenant-supplied patterns run on RE2 (re2js): linear in the input. On V8's backtracking engine
// the nested quantifier below takes exponential time: 147 s for 41 characters when measured, so
// each hostile case here would hang the test (and the executor) if it reached V8.
const NESTED = '^(a+)+$';
const HOSTILE = `${'a'.repeat(50_000)}!`;

function condition(expression: string): Condition {
  const compiled = compileCondition(expression, 'when');
  if (isFieldIssue(compiled)) throw new Error(`unexpected issue: ${compiled.message}`);
  return compiled;
}
const ctx = (args: Record<string, unknown>) => ({ subject: { id: 'u', roles: [], attributes: {} }, args, tool: 't' });

describe('CEL matches() on the linear-time engine', () => {
  it('keeps matches() semantics (RE2 partial match) in both call forms', () => {
    expect(runCondition(condition('args.name.matches("^a+$")'), ctx({ name: 'aaa' }))).toBe(true);
    expect(runCondition(condition('args.name.matches("b")'), ctx({ name: 'abc' }))).toBe(true);
    expect(runCondition(condition('matches(args.name, "^x")'), ctx({ name: 'abc' }))).toBe(false);
    expect(runCondition(condition('args.name.matches("^a+$") && args.n > 1'), ctx({ name: 'b', n: 2 }))).toBe(false);
  });

  it('decides a nested-quantifier pattern on 50,000 hostile characters', () => {
    expect(runCondition(condition(`args.name.matches("${NESTED}")`), ctx({ name: HOSTILE }))).toBe(false);
    expect(runCondition(condition(`args.name.matches("${NESTED}")`), ctx({ name: 'a'.repeat(50_000) }))).toBe(true);
  });

  it('rewrites matches() nested inside another matches() receiver', () => {
    const c = condition('(args.a.matches("^x") ? "yes" : "no").matches("^y")');
    expect(runCondition(c, ctx({ a: 'xx' }))).toBe(true);
    expect(runCondition(c, ctx({ a: HOSTILE }))).toBe(false);
  });

  it('runs a pattern taken from the arguments on RE2 too (an agent cannot choose a backtracking pattern)', () => {
    const c = condition('args.text.matches(args.pattern)');
    expect(runCondition(c, ctx({ text: HOSTILE, pattern: NESTED }))).toBe(false);
    // A pattern RE2 cannot run is an evaluation error (the rails then fail closed), not a V8 fallback.
    expect(runCondition(c, ctx({ text: 'ab', pattern: '(?<=a)b' }))).toMatch(/not supported/);
    expect(runCondition(c, ctx({ text: 'ab', pattern: 'x'.repeat(5000) }))).toMatch(/longer than 4096/);
  });

  it('refuses at policy load a literal pattern RE2 cannot run, naming the field', () => {
    let caught: unknown;
    try {
      compileRails({ tools: { t: { authorize: [{ id: 'lb', when: 'args.s.matches("(?<=a)b")', message: 'm' }] } } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).issues[0]).toMatchObject({ path: 'rails.tools.t.authorize[0].when' });
    expect((caught as ValidationError).issues[0]!.message).toMatch(/matches\(\).*not supported/);
  });
});

describe('argument-schema patterns on the linear-time engine', () => {
  const compile = (schema: Record<string, unknown>) => compileArgsSchema(createAjv(), schema, 'rails.tools.t.args');

  it('validates `pattern` with RE2 and decides hostile input', () => {
    const validate = compile({ type: 'object', properties: { name: { type: 'string', pattern: NESTED } } });
    if (isFieldIssue(validate)) throw new Error(validate.message);
    expect(validate({ name: 'aaaa' })).toEqual([]);
    expect(validate({ name: HOSTILE }).join(' ')).toMatch(/pattern/);
  });

  it('applies `patternProperties` with RE2', () => {
    const validate = compile({ type: 'object', patternProperties: { '^(x+)+$': { type: 'number' } }, additionalProperties: false });
    if (isFieldIssue(validate)) throw new Error(validate.message);
    expect(validate({ xxx: 1 })).toEqual([]);
    expect(validate({ xxx: 'one' }).length).toBeGreaterThan(0);
  });

  it('refuses at policy load a pattern RE2 cannot run, naming the field', () => {
    const issue = compile({ type: 'object', properties: { s: { type: 'string', pattern: '(a)\\1' } } });
    expect(isFieldIssue(issue)).toBe(true);
    expect(isFieldIssue(issue) && issue).toMatchObject({ path: 'rails.tools.t.args' });
    expect(isFieldIssue(issue) && issue.message).toMatch(/not supported/);
  });
});
