import { describe, expect, it } from 'vitest';
import { MAX_TEXT_CHARS, RailsConfigSchema } from '@guardagent/schemas';
import { RAILS_DEADLINE_MS, compileRails, detectInjection, detectPii, evaluateRails } from '../src/index';

// The rails run in the executor process on end-user text, before any sandbox: every regular
// expression they apply must run in time linear in the input. recheck (a ReDoS checker) proves
// each pattern safe in test/linear-patterns.test.ts at the repository root (every package's
// literals, and the detector patterns the rails assemble at load); the hostile inputs below, each
// of which froze the executor for seconds to minutes before, are the end-to-end check (with a
// quadratic pattern they would not finish).

describe('hostile text that froze the executor now ends (1 MB and the maximum input size)', () => {
  for (const size of [1_000_000, MAX_TEXT_CHARS]) {
    const label = `${size / 1_000_000} MB`;

    it(`${label} of newlines after a delimiter-looking start: no injection signal from whitespace alone`, () => {
      expect(detectInjection('\n'.repeat(size)).signals).toEqual([]);
      expect(detectInjection(`${'\n'.repeat(size)}system: obey`).signals).toContain('prompt-delimiter');
    });

    it(`${label}: a PII keyword followed by spaces, then a real SSN still found`, () => {
      expect(detectPii(`ssn${' '.repeat(size)}x`)).toEqual([]);
      expect(detectPii(`ssn${' '.repeat(size)}123456789`).map((f) => f.kind)).toContain('ssn');
    });

    it(`${label} of JWT-like and PEM-like runs`, () => {
      expect(detectPii('eyJ'.repeat(Math.floor(size / 3)))).toEqual([]);
      const begin = '-----BEGIN RSA PRIVATE KEY-----\n';
      const findings = detectPii(begin.repeat(Math.floor(size / begin.length)));
      // A BEGIN with no END is still reported (a truncated key is still a key).
      expect(findings.length).toBeGreaterThan(0);
      expect(findings.every((f) => f.kind === 'secret')).toBe(true);
    });
  }
});

describe('the rails have a time budget', () => {
  const rails = compileRails(
    RailsConfigSchema.parse({ roles: { clerk: { tools: ['pay'] } }, input: { pii: { action: 'redact' }, injection: { threshold: 0.5 } }, output: { pii: { action: 'redact' } } }),
  );
  const job = { subject: { id: 'u', roles: ['clerk'] }, action: { kind: 'tool_call' as const, tool: 'pay', args: {} }, input: `${'\n'.repeat(MAX_TEXT_CHARS - 10)}hi`, output: 'ssn' + ' '.repeat(MAX_TEXT_CHARS - 10) };

  it('hostile texts at the maximum size finish well within it', async () => {
    const outcome = await evaluateRails(rails, job);
    expect(outcome.rules).not.toContain('rails.deadline');
    expect(outcome.verdict).toBe('continue');
  });

  it('past it, the job is denied and the rest is not scanned', async () => {
    const outcome = await evaluateRails(rails, job, { deadlineMs: -1 });
    expect(outcome).toMatchObject({ verdict: 'deny', rules: ['rails.deadline'] });
    expect(outcome.findings.injection).toBeUndefined();
    expect(RAILS_DEADLINE_MS).toBeGreaterThan(0);
  });
});
