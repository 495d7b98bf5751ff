import { ScopeRequiredError } from '@guardagent/errors';
import { describe, expect, it } from 'vitest';
import { KEY_SCOPES, KeyScopeSchema, requireScopeForPolicy, scopeGrants } from '../src/index';

describe('scopeGrants', () => {
  it('admin implies operate, check and feedback; operate implies check and feedback', () => {
    for (const needed of KEY_SCOPES) expect(scopeGrants(['admin'], needed)).toBe(true);
    expect(scopeGrants(['operate'], 'check')).toBe(true);
    expect(scopeGrants(['operate'], 'feedback')).toBe(true);
    expect(scopeGrants(['operate'], 'admin')).toBe(false);
  });

  it('check and feedback imply nothing else', () => {
    expect(scopeGrants(['check'], 'check')).toBe(true);
    expect(scopeGrants(['check'], 'feedback')).toBe(false);
    expect(scopeGrants(['check'], 'operate')).toBe(false);
    expect(scopeGrants(['feedback'], 'check')).toBe(false);
    expect(scopeGrants(['check', 'feedback'], 'feedback')).toBe(true);
    expect(scopeGrants([], 'check')).toBe(false);
  });

  it('the schema takes exactly the four scopes', () => {
    expect(KeyScopeSchema.options).toEqual(['check', 'feedback', 'operate', 'admin']);
    expect(KeyScopeSchema.safeParse('root').success).toBe(false);
  });
});

describe('requireScopeForPolicy', () => {
  it('lets any key name a stored policy by id', () => {
    expect(() => requireScopeForPolicy(['check'], 'refunds', 'policy')).not.toThrow();
  });

  it('refuses an inline policy without operate, naming the scope and where', () => {
    const attempt = () => requireScopeForPolicy(['check', 'feedback'], { program: 'x' }, 'jobs[2].policy');
    expect(attempt).toThrow(ScopeRequiredError);
    expect(attempt).toThrow(/jobs\[2\]\.policy/);
    expect(() => requireScopeForPolicy(['operate'], { program: 'x' }, 'policy')).not.toThrow();
  });
});
