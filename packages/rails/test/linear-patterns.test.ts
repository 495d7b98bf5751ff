import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { checkSync } from 'recheck';
import { describe, expect, it } from 'vitest';
import { MAX_TEXT_CHARS } from '@guardagent/schemas';
import { RailsConfigSchema } from '@guardagent/schemas';
import { RAILS_DEADLINE_MS, compileRails, detectInjection, detectPii, evaluateRails } from '../src/index';
import { PII_PATTERNS } from '../src/pii/pii-patterns';
import { PHRASE_PATTERNS } from '../src/injection/injection-patterns';

// The rails run in the executor process on end-user text, before any sandbox: every regular
// expression they apply must run in time linear in the input. recheck (a ReDoS checker) proves
// each pattern safe; the hostile inputs below, each of which froze the executor for seconds to
// minutes before, are the end-to-end check (with a quadratic pattern they would not finish).

const SRC = join(import.meta.dirname, '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every regular-expression literal in the rails' source, with where it is. */
function regexLiterals(): { where: string; source: string; flags: string }[] {
  const found: { where: string; source: string; flags: string }[] = [];
  for (const file of sourceFiles(SRC)) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
        const text = node.getText(sf);
        const slash = text.lastIndexOf('/');
        found.push({ where: `${file.slice(SRC.length + 1)}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`, source: text.slice(1, slash), flags: text.slice(slash + 1) });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found;
}

describe('every pattern the rails apply to job text is linear (recheck)', () => {
  it('regex literals in packages/rails/src, and the built detector patterns (some are assembled at load)', () => {
    const patterns = [
      ...regexLiterals(),
      ...PII_PATTERNS.map((p) => ({ where: `pii:${p.kind}`, source: p.regex.source, flags: p.regex.flags })),
      ...PHRASE_PATTERNS.map((p) => ({ where: `injection:${p.signal}`, source: p.regex.source, flags: p.regex.flags })),
    ];
    expect(patterns.length).toBeGreaterThan(40);
    // On a loaded machine recheck's analysis can hit its time limit ('unknown', kind timeout): such a
    // pattern is analysed once more with a longer one, never counted safe without a verdict.
    const check = (source: string, flags: string) => {
      const first = checkSync(source, flags, { timeout: 20_000 });
      return first.status === 'unknown' && first.error.kind === 'timeout' ? checkSync(source, flags, { timeout: 120_000 }) : first;
    };
    const unsafe = patterns
      .map((p) => ({ ...p, result: check(p.source, p.flags) }))
      .filter((p) => p.result.status !== 'safe')
      .map((p) => `${p.where} /${p.source.slice(0, 60)}/ → ${p.result.status}${p.result.status === 'unknown' ? ` (${p.result.error.kind})` : ''}`);
    expect(unsafe).toEqual([]);
  }, 600_000);
});

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
