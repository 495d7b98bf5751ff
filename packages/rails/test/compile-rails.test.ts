import { describe, expect, it } from 'vitest';
import { ValidationError } from '@guardagent/errors';
import { canonicalJson, closeObjectSchemas, compileRails, evaluateRails, toolCallHash } from '../src/index';

function issuesOf(config: unknown): Array<{ path: string; message: string }> {
  try {
    compileRails(config);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).issues;
  }
  throw new Error('expected a ValidationError');
}

const cond = (when: string, id = 'c') => ({ id, when, message: 'm' });

describe('compileRails validation', () => {
  it('names the field of a CEL syntax error', () => {
    const issues = issuesOf({ tools: { issue_refund: { authorize: [cond('args.amount <=')] } } });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe('rails.tools.issue_refund.authorize[0].when');
    expect(issues[0]!.message).toMatch(/invalid CEL expression/);
  });

  it('rejects unknown variables and non-boolean conditions', () => {
    const issues = issuesOf({
      tools: {
        t: {
          authorize: [cond('true', 'ok'), cond('user.id == "x"', 'unknown-var')],
          requireApproval: [cond('1 + 2', 'not-bool')],
        },
      },
    });
    expect(issues.map((i) => i.path)).toEqual(['rails.tools.t.authorize[1].when', 'rails.tools.t.requireApproval[0].when']);
    expect(issues[0]!.message).toMatch(/Unknown variable: user/);
    expect(issues[1]!.message).toMatch(/boolean/);
  });

  it('names the field of an invalid JSON Schema (unknown keyword, bad type)', () => {
    const issues = issuesOf({
      tools: {
        a: { args: { type: 'object', properites: {} } },
        b: { args: { type: 'objekt' } },
      },
    });
    expect(issues.map((i) => i.path)).toEqual(['rails.tools.a.args', 'rails.tools.b.args']);
    expect(issues[0]!.message).toMatch(/properites/);
  });

  it('rejects duplicate rule ids within a tool and malformed sections via the schema', () => {
    expect(issuesOf({ tools: { t: { authorize: [cond('true', 'x')], requireApproval: [cond('false', 'x')] } } })[0]!.message).toMatch(
      /used twice/,
    );
    const paths = issuesOf({ tools: { t: { rateLimit: { max: 0, windowSeconds: 60 } } } }).map((i) => i.path);
    expect(paths).toEqual(['rails.tools.t.rateLimit.max']);
  });
});

describe('argument schemas', () => {
  const compiled = compileRails({
    roles: { r: { tools: ['t', 'open'] } },
    tools: {
      t: {
        args: {
          type: 'object',
          required: ['a'],
          properties: { a: { type: 'string' }, nested: { type: 'object', properties: { x: { type: 'number' } } } },
        },
      },
      open: { args: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true } },
    },
  });
  const call = (tool: string, args: Record<string, unknown>) =>
    evaluateRails(compiled, { subject: { id: 's', roles: ['r'] }, action: { kind: 'tool_call', tool, args } });

  it('rejects unknown properties by default, also in nested objects', async () => {
    expect((await call('t', { a: 'x' })).verdict).toBe('continue');
    const extra = await call('t', { a: 'x', b: 1 });
    expect(extra.verdict).toBe('deny');
    expect(extra.rules).toEqual(['tools.t.args']);
    expect(extra.reasons[0]).toMatch(/unknown property 'b'/);
    const nested = await call('t', { a: 'x', nested: { x: 1, y: 2 } });
    expect(nested.verdict).toBe('deny');
    expect(nested.reasons[0]).toMatch(/args\.nested has unknown property 'y'/);
  });

  it('keeps additionalProperties when the schema says otherwise', async () => {
    expect((await call('open', { a: 'x', b: 1 })).verdict).toBe('continue');
  });

  it('reports missing and wrongly typed arguments', async () => {
    const outcome = await call('t', { nested: { x: 'nope' } });
    expect(outcome.verdict).toBe('deny');
    expect(outcome.reasons[0]).toMatch(/missing 'a'/);
    expect(outcome.reasons[0]).toMatch(/args\.nested\.x must be number/);
  });

  it('closeObjectSchemas leaves composed schemas open and closes plain ones', () => {
    const closed = closeObjectSchemas({
      type: 'object',
      properties: { p: { type: 'object', properties: {} } },
      anyOf: [{ required: ['p'] }],
    }) as { additionalProperties?: unknown; properties: { p: { additionalProperties?: unknown } } };
    expect(closed.additionalProperties).toBe(false);
    expect(closed.properties.p.additionalProperties).toBe(false);
    const composed = closeObjectSchemas({ type: 'object', allOf: [{ properties: { a: {} } }] }) as { additionalProperties?: unknown };
    expect(composed.additionalProperties).toBeUndefined();
  });
});

describe('canonical JSON', () => {
  it('sorts keys at every level so equal arguments hash equally', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}');
    expect(toolCallHash('t', { a: 1, b: 2 })).toBe(toolCallHash('t', { b: 2, a: 1 }));
    expect(toolCallHash('t', { a: 1 })).not.toBe(toolCallHash('t', { a: 2 }));
    expect(toolCallHash('t', { a: 1 })).not.toBe(toolCallHash('u', { a: 1 }));
    expect(toolCallHash('t', { a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });
});
