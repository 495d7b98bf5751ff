import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { TASK_LEXICON } from '@guardagent/toolbox';
import { PII_PATTERNS } from '../../packages/rails/src/pii/pii-patterns';
import { PHRASE_PATTERNS } from '../../packages/rails/src/injection/injection-patterns';
import { SPELLED_PATTERNS } from '../../packages/rails/src/text/join-spelled-letters';

// Issue 10: every regular expression applied to job text runs in time linear in the input. Job
// text (agent input, output, task, LLM replies) reaches patterns in every package, so this holds
// the whole repository to it: each regex literal in packages/*/src and services/*/src, and the
// patterns assembled at load time. recheck (a ReDoS checker) proves each one; the proofs are kept
// in proofs.json, keyed by a hash of the pattern, so a run proves only what changed.

const ROOT = join(import.meta.dirname, '..', '..');

export interface Pattern {
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

/** The record's key of a pattern: a hash of its source and flags (what recheck reads). */
export function patternKey(p: Pick<Pattern, 'source' | 'flags'>): string {
  return createHash('sha256').update(`/${p.source}/${p.flags}`).digest('hex').slice(0, 32);
}

/** Every distinct pattern of shipped source, literals first. */
export function collectPatterns(): Pattern[] {
  return distinct([...regexLiterals(), ...builtPatterns()]);
}

export { regexLiterals };
