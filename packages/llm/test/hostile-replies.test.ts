import { describe, expect, it } from 'vitest';
import { LlmReplyError } from '@guardagent/errors';
import { extractCode, parseBaselineReply, parseClassifyReply } from '../src/index';

// Issue 10: LLM replies are read with regular expressions, and a reply can echo job text, so each
// parser must run in time linear in the reply. The replies below are about 1,000,000 characters.
// The hostile ones are shaped like a reply that made a parser's former pattern backtrack
// quadratically (those versions would not finish within the test timeout); the others are long
// ordinary replies. The results are the same as the former patterns gave (checked on shorter
// replies of the same shapes).

const SIZE = 1_000_000;
/** `unit` repeated to (about) SIZE characters. */
const fill = (unit: string) => unit.repeat(Math.floor(SIZE / unit.length));

describe('extractCode on hostile replies', () => {
  it('fence-like lines that never reach a line feed', () => {
    const separated = fill('~~~\u2028');
    expect(extractCode(separated)).toBe(separated.trim());
    const longInfo = `~~~${'~x'.repeat(SIZE / 2)}`;
    expect(extractCode(longInfo)).toBe(longInfo);
    expect(extractCode(`\`\`\`${' '.repeat(SIZE)}`)).toBe('```');
  });

  it('long ordinary replies: a block never closed, many blocks', () => {
    expect(extractCode(`\`\`\`js\n${fill('a\n')}`)).toBe(fill('a\n').trim());
    expect(() => extractCode(fill('```py\nx\n```\n'))).toThrow(/only: py/);
    expect(extractCode(`${fill('```py\n```\n')}\`\`\`js\nreturn 1;\n\`\`\``)).toBe('return 1;');
  });

  it('ordinary replies read as before', () => {
    expect(extractCode('Here:\n  ~~~~ JS title\nreturn 1;\n  ~~~~  \nafter')).toBe('return 1;');
    expect(extractCode('```js\nreturn 1;\n````\nreturn 2;\n```')).toBe('return 1;\n````\nreturn 2;');
    expect(extractCode('x ```ts return 1;``` y')).toBe('return 1;');
    expect(() => extractCode('```js\n   \n```')).toThrow(LlmReplyError);
  });
});

describe('parseBaselineReply on hostile replies', () => {
  it('long runs of markup lines before a REASONS label', () => {
    expect(parseBaselineReply(`DECISION: DENY\n*${fill('_\n*')}_:\nREASONS: too long`)).toEqual({ deny: true, reasons: ['too long'] });
    expect(parseBaselineReply(`DECISION: ALLOW\n*${fill('_\n*')}_:\nREASON:`)).toEqual({ deny: false, reasons: [] });
    expect(parseBaselineReply(`${fill('-\n')}DECISION: DENY`)).toEqual({
      deny: true,
      reasons: ['The model judged that the action violates the guard requests (no reason given)'],
    });
  });

  it('ordinary replies read as before', () => {
    expect(parseBaselineReply('**Reasons**:\n- a\n\n**DECISION:** DENY')).toEqual({ deny: true, reasons: ['a'] });
    expect(parseBaselineReply('DECISION: DENY\n  ## REASONS:\n1. b')).toEqual({ deny: true, reasons: ['b'] });
    expect(parseBaselineReply('DECISION: DENY\nthe REASONS: c')).toEqual({ deny: true, reasons: ['the REASONS: c'] });
  });
});

describe('parseClassifyReply on hostile replies', () => {
  const categories = ['safe', 'unsafe', 'needs review'];

  it('long runs of quotes and end punctuation', () => {
    expect(parseClassifyReply(`Unsafe${'.'.repeat(SIZE)}x`, categories)).toBe('unsafe');
    expect(parseClassifyReply(`safe${'!'.repeat(SIZE)}x`, categories)).toBe('safe');
    expect(parseClassifyReply(`needs review${' '.repeat(SIZE)}!x`, categories)).toBe('needs review');
  });
});
