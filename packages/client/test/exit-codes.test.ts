import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckTimeoutError, ConfigError, GuardDeniedError, NotFoundError, QuotaExceededError, UnavailableError, ValidationError } from '@guardagent/errors';
import { EXIT_CODES, GatewayError, exitCodeOfDecision, exitCodeOfError } from '../src/index';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** The README's exit-code table: name → code, in its order. */
function readmeTable(): Array<[string, number]> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('#### Exit codes'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| code |')));
  return [...table.matchAll(/^\| (\d+) \| `([A-Z_]+)` \|/gm)].map((m) => [m[2], Number(m[1])]);
}

describe('one exit-code table', () => {
  it("the README's table is EXIT_CODES, row for row", () => {
    expect(readmeTable()).toEqual(Object.entries(EXIT_CODES));
  });

  it('the Python SDK defines the same codes (ExitCode in clients/python/guardagent/exit_codes.py)', () => {
    const python = readFileSync(join(ROOT, 'clients', 'python', 'guardagent', 'exit_codes.py'), 'utf8');
    const body = python.slice(python.indexOf('class ExitCode(IntEnum):'));
    const defined = [...body.slice(0, body.indexOf('\n\n')).matchAll(/^ {4}([A-Z_]+) = (\d+)$/gm)].map((m) => [m[1], Number(m[2])]);
    expect(defined).toEqual(Object.entries(EXIT_CODES));
  });

  it('a decision maps to allow 0, deny 1, pending 4 and guard_error 3 (unless let through)', () => {
    expect(exitCodeOfDecision({ decision: 'allow', status: 'ok' })).toBe(0);
    expect(exitCodeOfDecision({ decision: 'deny', status: 'ok' })).toBe(1);
    expect(exitCodeOfDecision({ decision: 'pending', status: 'ok' })).toBe(4);
    expect(exitCodeOfDecision({ decision: 'deny', status: 'guard_error' })).toBe(3);
    // failMode open: the call goes ahead, so the answer is allow.
    expect(exitCodeOfDecision({ decision: 'allow', status: 'guard_error' })).toBe(0);
  });

  it('errors map to INVALID (fix the call), UNAVAILABLE (run again later) or INTERNAL (a bug)', () => {
    expect(exitCodeOfError(new ValidationError('policy', [{ path: 'id', message: 'x' }]))).toBe(EXIT_CODES.INVALID);
    expect(exitCodeOfError(new NotFoundError('policy', 'x'))).toBe(EXIT_CODES.INVALID);
    expect(exitCodeOfError(new ConfigError('no key'))).toBe(EXIT_CODES.INVALID);
    expect(exitCodeOfError(new GatewayError('FORBIDDEN', 'admin only', 403))).toBe(EXIT_CODES.INVALID);
    expect(exitCodeOfError(new UnavailableError('Redis is down'))).toBe(EXIT_CODES.UNAVAILABLE);
    expect(exitCodeOfError(new CheckTimeoutError('id', 10))).toBe(EXIT_CODES.UNAVAILABLE);
    expect(exitCodeOfError(new QuotaExceededError('checks per second', 10))).toBe(EXIT_CODES.UNAVAILABLE);
    expect(exitCodeOfError(new GatewayError('HTTP_500', 'boom', 500))).toBe(EXIT_CODES.UNAVAILABLE);
    expect(exitCodeOfError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(EXIT_CODES.UNAVAILABLE);
    expect(exitCodeOfError(new TypeError('x is undefined'))).toBe(EXIT_CODES.INTERNAL);
  });

  it("a guarded tool's refusal exits as its decision: deny 1, pending 4, guard_error 3", () => {
    expect(exitCodeOfError(new GuardDeniedError('t', ['no'], { decision: 'deny', status: 'ok' }))).toBe(EXIT_CODES.DENIED);
    expect(exitCodeOfError(new GuardDeniedError('t', ['held'], { decision: 'pending', status: 'ok' }))).toBe(EXIT_CODES.PENDING);
    expect(exitCodeOfError(new GuardDeniedError('t', ['no program'], { decision: 'deny', status: 'guard_error' }))).toBe(EXIT_CODES.GUARD_ERROR);
    // Without a decision to read it is a GuardAgent error like the others.
    expect(exitCodeOfError(new GuardDeniedError('t', ['no'], null))).toBe(EXIT_CODES.INVALID);
  });
});
