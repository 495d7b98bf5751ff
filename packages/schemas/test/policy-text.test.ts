import { describe, expect, it } from 'vitest';
import { ValidationError } from '@guardagent/errors';
import { closestName, parsePolicyText, readYamlText } from '../src/index';

function issuesOf(text: string) {
  try {
    parsePolicyText(text, 'p.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).what).toBe('p.yaml');
    return (error as ValidationError).issues;
  }
  throw new Error('the policy was accepted');
}

describe('policy files: every mistake with its field, line and the closest known name', () => {
  it('a mistyped field or value says which was meant, on its line', () => {
    const issues = issuesOf('id: p\nrequets: deny refunds\nmode: compild\ntoolbox: [core, rials]\n');
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'requets', message: "unknown field 'requets'; did you mean 'requests'?", line: 2, column: 1 },
        expect.objectContaining({ path: 'mode', line: 3, message: expect.stringMatching(/expected one of .*; did you mean 'compiled'\?$/) }),
        expect.objectContaining({ path: 'toolbox[1]', line: 4, column: 17, message: expect.stringMatching(/did you mean 'rails'\?$/) }),
      ]),
    );
  });

  it('nested fields: a slip inside rails, a missing field, both with lines', () => {
    const issues = issuesOf(
      ['id: p', 'rails:', '  roles:', '    agent: { tool: [x] }', '  tools:', '    x:', '      authorize:', "        - { id: r, when: 'true', mesage: m }", ''].join('\n'),
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'rails.roles.agent.tool', line: 4, message: "unknown field 'tool'; did you mean 'tools'?" }),
        expect.objectContaining({ path: 'rails.tools.x.authorize[0].mesage', line: 8, message: "unknown field 'mesage'; did you mean 'message'?" }),
        expect.objectContaining({ path: 'rails.tools.x.authorize[0].message', line: 8, message: 'required field missing (expected string)' }),
      ]),
    );
  });

  it('a YAML syntax error keeps the library excerpt with its caret, and its line', () => {
    const [issue] = issuesOf('id: p\nrequests: x\n  bad: indent\n');
    expect(issue).toMatchObject({ path: '', line: 2 });
    expect(issue!.message).toMatch(/not valid YAML\/JSON: .*line 2.*\n[\s\S]*\^/);
  });

  it('a field name holding dots is found on its line', () => {
    const text = readYamlText('rails:\n  tools:\n    fs.read:\n      authorize: []\n', 't.yaml');
    expect(text.locate('rails.tools.fs.read.authorize')).toEqual({ line: 4, column: 7 });
    expect(text.locate('rails.tools.nope')).toEqual({ line: 3, column: 5 });
  });

  it('closestName suggests only a near, unambiguous name', () => {
    expect(closestName('amout', ['amount', 'reason'])).toBe('amount');
    expect(closestName('AMOUNT', ['amount'])).toBe('amount');
    expect(closestName('xyz', ['amount', 'reason'])).toBeNull();
    expect(closestName('cat', ['car', 'cap'])).toBeNull(); // tied
    expect(closestName('amount', ['amount'])).toBeNull(); // not a slip
  });
});
