import { describe, expect, it } from 'vitest';
import { LlmReplyError } from '@guardagent/errors';
import { extractCode, extractPlan } from '../src/index';

const BODY = 'const r = await checkAccess(input, output);\nreturn { deny: !r.ok, reasons: r.reasons };';

describe('extractCode', () => {
  it.each(['js', 'javascript', 'ts', 'typescript', 'JavaScript', ''])('takes the body of a ```%s block', (lang) => {
    const reply = `Here is the guard code:\n\n\`\`\`${lang}\n${BODY}\n\`\`\`\n\nIt checks access.`;
    expect(extractCode(reply)).toBe(BODY);
  });

  it('takes the FIRST accepted block and skips blocks in other languages', () => {
    const reply = `\`\`\`json\n{"a":1}\n\`\`\`\n\`\`\`javascript\nreturn { deny: true, reasons: ['first'] };\n\`\`\`\n\`\`\`js\nreturn { deny: false, reasons: [] };\n\`\`\``;
    expect(extractCode(reply)).toBe("return { deny: true, reasons: ['first'] };");
  });

  it('returns the whole reply, trimmed, when there is no fence', () => {
    expect(extractCode(`\n\n  ${BODY}  \n`)).toBe(BODY);
  });

  it('handles CRLF line endings and an unterminated block (reply cut off)', () => {
    expect(extractCode('```js\r\nreturn { deny: false, reasons: [] };\r\n```\r\n')).toBe('return { deny: false, reasons: [] };');
    expect(extractCode('```javascript\nconst x = 1;\nreturn { deny: x > 2, reasons: [] };')).toBe(
      'const x = 1;\nreturn { deny: x > 2, reasons: [] };',
    );
  });

  it('accepts a fence opened mid-line when there is no line fence', () => {
    expect(extractCode('Code: ```js\nreturn { deny: false, reasons: [] };```')).toBe('return { deny: false, reasons: [] };');
  });

  it('keeps inner backticks of template literals', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: guard code that has a template literal, as text
    const code = 'const s = `a ${1}`;\nreturn { deny: false, reasons: [s] };';
    expect(extractCode('```js\n' + code + '\n```')).toBe(code);
  });

  it('throws LlmReplyError for an empty reply, an empty block, or only non-JS blocks', () => {
    expect(() => extractCode('   \n ')).toThrow(LlmReplyError);
    expect(() => extractCode('```js\n\n```')).toThrow(LlmReplyError);
    expect(() => extractCode('```python\nprint(1)\n```')).toThrow(/no JavaScript code block \(only: python\)/);
  });
});

describe('extractPlan', () => {
  it('returns the trimmed reply', () => {
    expect(extractPlan('\n 1. Key points...\n2. Input...\r\n')).toBe('1. Key points...\n2. Input...');
  });

  it('throws LlmReplyError for an empty reply', () => {
    expect(() => extractPlan(' \n\t')).toThrow(LlmReplyError);
  });
});
