import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { check } from 'recheck';
import { describe, expect, it } from 'vitest';
import { TASK_LEXICON } from '@guardagent/toolbox';
import { PII_PATTERNS } from '../packages/rails/src/pii/pii-patterns';
import { PHRASE_PATTERNS } from '../packages/rails/src/injection/injection-patterns';
import { SPELLED_PATTERNS } from '../packages/rails/src/text/join-spelled-letters';

// Issue 10: every regular expression applied to job text runs in time linear in the input. Job
// text (agent input, output, task, LLM replies) reaches patterns in every package, so this holds
// the whole repository to it: each regex literal in packages/*/src and services/*/src, and the
// patterns assembled at load time, must be proven safe by recheck (a ReDoS checker). The hostile
// inputs next to each package's tests are the end-to-end check.

const ROOT = join(import.meta.dirname, '..');

interface Pattern {
  where: string;
  source: string;
  flags: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.[cm]?tsx?$/.test(name) ? [path] : [];
  });
}

/** The src folders of every workspace (their tests and benches are not shipped code). */
function sourceRoots(): string[] {
  return ['packages', 'services'].flatMap((top) =>
    readdirSync(join(ROOT, top))
      .map((name) => join(ROOT, top, name, 'src'))
      .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory()),
  );
}

/** Every regular-expression literal in shipped source, with file:line. */
function regexLiterals(): Pattern[] {
  const found: Pattern[] = [];
  for (const file of sourceRoots().flatMap(sourceFiles)) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
        const text = node.getText(sf);
        const slash = text.lastIndexOf('/');
        const line = sf.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        found.push({ where: `${relative(ROOT, file)}:${line}`, source: text.slice(1, slash), flags: text.slice(slash + 1) });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found;
}

const fromRegExp = (where: string, regex: RegExp): Pattern => ({ where, source: regex.source, flags: regex.flags });

/** Patterns built at load time (`new RegExp(...)` from parts), which no literal shows whole. */
function builtPatterns(): Pattern[] {
  const lexicon = Object.entries(TASK_LEXICON).flatMap(([category, { masks, cues }]) => [
    ...masks.map((mask) => fromRegExp(`task-lexicon:${category} mask`, mask)),
    ...cues.flatMap((cue) =>
      cue instanceof RegExp
        ? [fromRegExp(`task-lexicon:${category} cue`, cue)]
        : 'first' in cue
          ? [fromRegExp(`task-lexicon:${category} nearby cue`, cue.first), fromRegExp(`task-lexicon:${category} nearby cue`, cue.then)]
          : [fromRegExp(`task-lexicon:${category} cue`, cue.pattern), fromRegExp(`task-lexicon:${category} cue unless`, cue.unless)],
    ),
  ]);
  return [
    ...PII_PATTERNS.map((p) => fromRegExp(`rails pii:${p.kind}`, p.regex)),
    ...PHRASE_PATTERNS.map((p) => fromRegExp(`rails injection:${p.signal}`, p.regex)),
    ...PHRASE_PATTERNS.flatMap((p) => (p.when ? [fromRegExp(`rails injection:${p.signal} when`, p.when)] : [])),
    ...SPELLED_PATTERNS.map((regex) => fromRegExp('rails text:spelled letters', regex)),
    ...lexicon,
  ];
}

/** One entry per distinct pattern, the first place it appears naming it. */
function distinct(patterns: Pattern[]): Pattern[] {
  const seen = new Set<string>();
  return patterns.filter((p) => {
    const key = `/${p.source}/${p.flags}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * recheck's fuzzer cuts its trial matches by wall-clock time by default, so on a busy machine a
 * slow trial reads as an attack (a false 'vulnerable'); cut by characters read instead, the
 * verdicts are the same on any machine. A pattern still undecided after five minutes is reported
 * (the slowest take about 30 s on an idle machine, and several times that beside the whole suite).
 */
const RECHECK_PARAMS = { timeout: 300_000, attackTimeout: null, incubationTimeout: null, seedingTimeout: null };

/** recheck on each pattern, two at a time (the checks run in recheck's own process). */
async function unsafePatterns(patterns: Pattern[]): Promise<string[]> {
  const unsafe: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < patterns.length) {
      const p = patterns[next++];
      const result = await check(p.source, p.flags, RECHECK_PARAMS);
      if (result.status !== 'safe') unsafe.push(`${p.where} /${p.source}/${p.flags} → ${result.status}`);
    }
  };
  await Promise.all([worker(), worker()]);
  return unsafe.sort();
}

describe('every pattern applied to job text is linear (recheck)', () => {
  it('regex literals in packages/*/src and services/*/src, and the patterns built at load time', async () => {
    const literals = regexLiterals();
    expect(literals.length).toBeGreaterThan(200);
    const patterns = distinct([...literals, ...builtPatterns()]);
    expect(await unsafePatterns(patterns)).toEqual([]);
    // About two minutes on an idle 2-core machine; the limit leaves room for a busy one.
  }, 1_200_000);
});
