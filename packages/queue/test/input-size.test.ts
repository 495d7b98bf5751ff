import { describe, expect, it } from 'vitest';
import { GuardJobSchema, MAX_TEXT_CHARS, jsonCharsOver } from '@guardagent/schemas';
import { StageJobPayloadSchema } from '../src/index';

const issuePaths = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  result.success ? [] : (result.error?.issues ?? []).map((i) => i.path.join('.'));

describe('the input size cap holds for strings and JSON alike', () => {
  it('accepts a string of exactly the cap, refuses one character more (was: any string through the JSON branch)', () => {
    expect(GuardJobSchema.safeParse({ policy: 'p', input: 'x'.repeat(MAX_TEXT_CHARS) }).success).toBe(true);
    expect(issuePaths(GuardJobSchema.safeParse({ policy: 'p', input: 'x'.repeat(MAX_TEXT_CHARS + 1) }))).toEqual(['input']);
    expect(issuePaths(GuardJobSchema.safeParse({ policy: 'p', output: 'y'.repeat(10_000_000) }))).toEqual(['output']);
  });

  it('refuses JSON whose text would pass the cap: one big string inside, or many small ones', () => {
    expect(issuePaths(GuardJobSchema.safeParse({ policy: 'p', input: { nested: ['z'.repeat(MAX_TEXT_CHARS)] } }))).toEqual(['input']);
    const many = Array.from({ length: 300_000 }, () => 'abcdefgh');
    expect(issuePaths(GuardJobSchema.safeParse({ policy: 'p', input: many }))).toEqual(['input']);
    expect(GuardJobSchema.safeParse({ policy: 'p', input: many.slice(0, 1000) }).success).toBe(true);
  });

  it('bounds context and action arguments too, naming the field', () => {
    expect(issuePaths(GuardJobSchema.safeParse({ policy: 'p', context: { note: 'c'.repeat(MAX_TEXT_CHARS + 1) } }))).toEqual(['context']);
    const action = { kind: 'tool_call', tool: 't', args: { body: 'a'.repeat(MAX_TEXT_CHARS + 1) } };
    expect(issuePaths(GuardJobSchema.safeParse({ policy: 'p', action }))).toEqual(['action.args']);
  });

  it('is checked again in the worker, for jobs that reached the queue without submit', () => {
    expect(issuePaths(StageJobPayloadSchema.safeParse({ input: 'q'.repeat(MAX_TEXT_CHARS + 1), output: '' }))).toEqual(['input']);
    expect(StageJobPayloadSchema.safeParse({ input: 'ok', output: { a: 1 } }).success).toBe(true);
  });

  it('measures JSON text without building it, never above JSON.stringify', () => {
    const values = [{ a: [1, 'xy', null, true], 'k"': { z: 'é' } }, ['', [], {}], 'plain', 12345, null];
    for (const value of values) expect(jsonCharsOver(value, JSON.stringify(value).length)).toBe(false);
    expect(jsonCharsOver({ s: 'x'.repeat(100) }, 50)).toBe(true);
  });
});
