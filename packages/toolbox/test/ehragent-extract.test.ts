import { describe, expect, it } from 'vitest';
import { ehragentPack, ehrExtractCode, ehrOutputAccess, ehrSchema } from '../src/packs/ehragent';

const CODE = "db = LoadDB('lab')\nanswer = GetValue(db, 'labresult, max')";

describe('ehrExtractCode', () => {
  it('takes the code between "Generated code:" and the last "Answer:"', () => {
    const output = `Knowledge:\n- lab\n\nGenerated code:\n${CODE}\nAnswer:\n7.5`;
    expect(ehrExtractCode(output)).toBe(CODE);
    expect(ehrOutputAccess(output)).toEqual({ lab: ['labresult'] });
  });

  it('reads fenced blocks, JSON cell payloads and escaped one-line code', () => {
    expect(ehrExtractCode('Here:\n```python\n' + CODE + '\n```\nDone')).toBe(CODE);
    expect(ehrExtractCode(JSON.stringify({ cell: CODE }))).toBe(CODE);
    const flattened = JSON.stringify(CODE).slice(1, -1);
    expect(ehrExtractCode(`Generated code:\n${flattened}\nAnswer:\n1`)).toBe(CODE);
  });

  it('returns "" when there is no code', () => {
    expect(ehrExtractCode('')).toBe('');
    expect(ehrExtractCode('The answer is 42.')).toBe('');
  });
});

describe('ehragent pack', () => {
  it('lists the schema of the ten eICU tables', () => {
    const schema = ehrSchema();
    expect(Object.keys(schema)).toHaveLength(10);
    expect(schema.patient).toHaveLength(17);
    expect(schema.lab).toContain('labresulttime');
  });

  it('exposes callable functions with signatures', () => {
    expect(ehragentPack.map((f) => f.name)).toEqual(['ehrExtractCode', 'ehrCodeAccess', 'ehrCodeAnalysis', 'ehrOutputAccess', 'ehrSchema']);
    for (const f of ehragentPack) {
      expect(f.pack).toBe('ehragent');
      expect(f.signature.startsWith(`${f.name}(`)).toBe(true);
    }
    const access = ehragentPack.find((f) => f.name === 'ehrCodeAccess')!.create({});
    expect(access(CODE)).toEqual({ lab: ['labresult'] });
  });
});
