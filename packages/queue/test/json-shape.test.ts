import { describe, expect, it } from 'vitest';
import { GuardJobSchema, MAX_JSON_DEPTH, jsonShapeIssue } from '@guardagent/schemas';
import { StageJobPayloadSchema } from '../src/index';

const issuePaths = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  result.success ? [] : (result.error?.issues ?? []).map((i) => i.path.join('.'));

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};

describe('job JSON with prototype keys is refused, naming the path (never silently dropped)', () => {
  for (const key of ['__proto__', 'constructor', 'prototype']) {
    it(`'${key}' in action arguments, context, input and nested arrays`, () => {
      const args = JSON.parse(`{"user_id":"u-1","${key}":{"role":"admin"}}`);
      expect(issuePaths(GuardJobSchema.safeParse({ policy: 'p', action: { kind: 'tool_call', tool: 'delete_user', args } }))).toEqual([
        `action.args.${key}`,
      ]);
      expect(issuePaths(GuardJobSchema.safeParse({ policy: 'p', context: JSON.parse(`{"a":[{"${key}":1}]}`) }))).toEqual([`context.a.0.${key}`]);
      expect(issuePaths(GuardJobSchema.safeParse({ policy: 'p', input: JSON.parse(`{"${key}":{}}`) }))).toEqual([`input.${key}`]);
      expect(issuePaths(StageJobPayloadSchema.safeParse({ input: '', output: JSON.parse(`[{"${key}":0}]`) }))).toEqual([`output.0.${key}`]);
    });
  }

  it('keeps ordinary keys that merely contain those words', () => {
    const args = { proto: 1, constructorName: 'x', prototypes: [], __proto: null };
    expect(GuardJobSchema.safeParse({ policy: 'p', action: { kind: 'tool_call', tool: 't', args } }).success).toBe(true);
  });
});

describe('deep nesting is refused before anything recurses into it', () => {
  it(`accepts ${MAX_JSON_DEPTH - 1} levels, refuses ${MAX_JSON_DEPTH} and 100,000 (was: a stack overflow, answered 500)`, () => {
    expect(GuardJobSchema.safeParse({ policy: 'p', context: { v: nested(MAX_JSON_DEPTH - 3) } }).success).toBe(true);
    const refused = GuardJobSchema.safeParse({ policy: 'p', context: { v: nested(MAX_JSON_DEPTH) } });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0].message).toContain(`deeper than ${MAX_JSON_DEPTH}`);
    expect(issuePaths(GuardJobSchema.safeParse({ policy: 'p', input: nested(100_000) }))[0]).toMatch(/^input(\.0)+$/);
    expect(jsonShapeIssue(nested(100_000))?.path.length).toBe(MAX_JSON_DEPTH);
  });
});
