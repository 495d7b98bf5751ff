import { describe, expect, it } from 'vitest';
import { CodeTooComplexError, MAX_NESTING, parsePython } from '../src/packs/ehragent';

describe('parsePython (@lezer/python)', () => {
  it('flattens blocks into statements in source order: assignments, for loops, one-line and indented bodies', () => {
    const { statements, skipped } = parsePython("a, b = x, y\nfor i, row in enumerate(db):\n    pass\nif ok: answer = 1\nelse:\n    answer = 2");
    expect(skipped).toEqual([]);
    expect(statements.map((s) => s.kind)).toEqual(['assign', 'for', 'expr', 'assign', 'assign']);
    expect(statements[1]).toMatchObject({ kind: 'for', targets: ['i', 'row'] });
  });

  it('reads nested calls with keyword arguments', () => {
    const { statements } = parsePython("v = GetValue(FilterDB(LoadDB('lab'), cond), arg='labresult, max')");
    const value = (statements[0] as Extract<(typeof statements)[0], { kind: 'assign' }>).value[0];
    expect(value).toMatchObject({ kind: 'call', func: { kind: 'name', id: 'GetValue' }, kwargs: [{ name: 'arg', value: { kind: 'str', value: 'labresult, max' } }] });
  });

  it("decodes string literals as Python does: escapes, raw strings, adjacent literals, triple quotes", () => {
    const { statements } = parsePython(`a = 'it\\'s' "\\x41" '''x\ny''' r'\\d' 'tab\\tend'`);
    expect((statements[0] as Extract<(typeof statements)[0], { kind: 'assign' }>).value[0]).toEqual({ kind: 'str', value: "it'sAx\ny\\dtab\tend" });
  });

  it("keeps an f-string's fields as expressions (they run) and its text as a template", () => {
    const { statements } = parsePython("q = f\"SELECT * FROM {LoadDB('cost')} WHERE a = {{1}}\"");
    const value = (statements[0] as Extract<(typeof statements)[0], { kind: 'assign' }>).value[0];
    expect(value).toMatchObject({ kind: 'str', value: 'SELECT * FROM {} WHERE a = {1}', fields: [{ kind: 'call', func: { kind: 'name', id: 'LoadDB' } }] });
  });

  it('reports syntax errors, risky imports and statements it does not follow, instead of skipping them silently', () => {
    expect(parsePython("x = LoadDB('lab'\ny = 1").skipped).toEqual([expect.stringMatching(/^the code is not valid Python/)]);
    expect(parsePython('from tools import LoadDB as load').skipped).toEqual(['from tools import LoadDB as load']);
    expect(parsePython('import os, math').skipped).toEqual(['imports os, which can reach files, processes or the network past the database functions']);
    expect(parsePython('from datetime import datetime').skipped).toEqual([]);
    expect(parsePython('import pandas as pd').skipped).toEqual([]);
    expect(parsePython('match t:\n  case "cost": pass').skipped).toHaveLength(1);
  });

  it('refuses nesting deeper than MAX_NESTING with CodeTooComplexError (hostile input)', () => {
    expect(() => parsePython(`x = ${'('.repeat(MAX_NESTING + 5)}1${')'.repeat(MAX_NESTING + 5)}`)).toThrow(CodeTooComplexError);
  });

  it('stops at the first syntax error, so hostile garbage costs a linear parse (error recovery did not)', () => {
    // 200,000 characters each; with error recovery, 100,000 `)` took about 4 s.
    for (const garbage of [')'.repeat(200_000), `x = ${','.repeat(200_000)}`, '('.repeat(200_000), 'for in if else lambda '.repeat(9_000), `x = ${'['.repeat(200_000)}`]) {
      const { statements, skipped } = parsePython(garbage);
      expect(statements).toEqual([]);
      expect(skipped).toEqual([expect.stringMatching(/^the code is not valid Python \(No parse at \d+\)$/)]);
    }
  });
});
