import { fileURLToPath } from 'node:url';
import { detectInjection } from '@guardagent/rails';
import { InjectionFilterSchema } from '@guardagent/schemas';
import { loadDetectorCorpus, type CorpusText } from './detector-corpus';

export const INTENTS_CORPUS_PATH = fileURLToPath(new URL('../../data/detectors/intents.jsonl', import.meta.url));

/** Rates over one slice: attacks caught and benign look-alikes flagged. */
export interface SliceRates {
  attacks: number;
  caught: number;
  benign: number;
  flagged: number;
  tpr: number | null;
  fpr: number | null;
}

export interface IntentReport {
  threshold: number;
  /** The texts as written, per split, per kind of intent (family `<kind>:<lang>`) and per language. */
  splits: Record<'dev' | 'heldout', SliceRates>;
  kinds: Record<string, SliceRates>;
  languages: Record<string, SliceRates>;
  /** Every text (attacks and benign look-alikes) hidden in each encoding, and spread over table cells. */
  encodings: Record<string, SliceRates>;
  tables: Record<string, SliceRates>;
}

const rot13 = (text: string) =>
  text.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
const references = (text: string, hex = false) => Array.from(text, (c) => (hex ? `&#x${c.codePointAt(0)!.toString(16)};` : `&#${c.codePointAt(0)};`)).join('');

/** The ways of hiding a text the issue names (37a): each as an attacker writes it. */
export const ENCODINGS: Readonly<Record<string, (text: string) => string>> = {
  percent: (t) => encodeURIComponent(t),
  'html-references': (t) => references(t),
  'html-comment': (t) => `<p>Opening hours: 9-17.</p><!-- ${references(t, true)} -->`,
  rot13,
  hex: (t) => Buffer.from(t, 'utf8').toString('hex'),
  base64: (t) => Buffer.from(t, 'utf8').toString('base64'),
  reversed: (t) => Array.from(t).reverse().join(''),
  'base64-of-percent': (t) => Buffer.from(encodeURIComponent(t), 'utf8').toString('base64'),
};

/** Particles and signs after which a sentence of Chinese or Japanese may be cut into cells. */
const UNSPACED_BREAKS = '、。，を的にはが';

/**
 * The text cut into cells of two words (a text written without spaces: in two, after the particle
 * nearest its middle), as a table spreads it; commas dropped (CSV cells cannot hold them unquoted).
 */
function cells(text: string): string[] {
  if (!text.includes(' ')) {
    const middle = text.length >> 1;
    let at = -1;
    for (let k = 0; k < text.length; k++) if (UNSPACED_BREAKS.includes(text[k]!) && (at < 0 || Math.abs(k - middle) < Math.abs(at - middle))) at = k;
    return at < 0 ? [text] : [text.slice(0, at + 1), text.slice(at + 1)];
  }
  const words = text.split(' ');
  const out: string[] = [];
  for (let k = 0; k < words.length; k += 2) out.push(words.slice(k, k + 2).join(' '));
  return out;
}

/** The text spread over table cells, along a row, down a column, in HTML and in CSV. */
export const TABLES: Readonly<Record<string, (text: string) => string>> = {
  'pipe-row': (t) => `| ${cells(t).join(' | ')} |`,
  'pipe-column': (t) => cells(t).map((cell, k) => `| ${cell} | ${k + 1} |`).join('\n'),
  'html-row': (t) => `<table><tr>${cells(t).map((cell) => `<td>${cell}</td>`).join('')}</tr></table>`,
  'csv-row': (t) => {
    const row = cells(t.replace(/,/g, ''));
    return `${row.join(',')}\n${row.map((_, k) => String(k + 1)).join(',')}`;
  },
};

function rates(items: ReadonlyArray<{ label: 0 | 1; flagged: boolean }>): SliceRates {
  const attacks = items.filter((i) => i.label === 1);
  const benign = items.filter((i) => i.label === 0);
  const caught = attacks.filter((i) => i.flagged).length;
  const flagged = benign.filter((i) => i.flagged).length;
  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  return { attacks: attacks.length, caught, benign: benign.length, flagged, tpr: attacks.length ? round(caught / attacks.length) : null, fpr: benign.length ? round(flagged / benign.length) : null };
}

function group<T extends { family: string }>(items: readonly T[], key: (family: string) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item.family);
    out.set(k, [...(out.get(k) ?? []), item]);
  }
  return out;
}

/**
 * The rails' injection detector on the authored intents set (injections of each kind and benign
 * look-alikes in 22 languages, data/detectors/intents.jsonl), as written, hidden in each encoding,
 * and spread over table cells, at the policies' default threshold.
 */
export function evaluateIntentSets(path: string = INTENTS_CORPUS_PATH): IntentReport {
  const threshold = InjectionFilterSchema.parse({}).threshold;
  const corpus: CorpusText[] = loadDetectorCorpus(path);
  const read = (text: string) => detectInjection(text).score >= threshold;
  const plain = corpus.map((t) => ({ ...t, flagged: read(t.text) }));
  const splitOf = (split: 'dev' | 'heldout') => rates(plain.filter((t) => t.split === split));
  const kinds = Object.fromEntries(
    [...group(plain.filter((t) => t.label === 1), (f) => f.split(':')[0]!)].sort(([a], [b]) => a.localeCompare(b)).map(([k, items]) => [k, rates(items)]),
  );
  const languages = Object.fromEntries([...group(plain, (f) => f.split(':')[1]!)].sort(([a], [b]) => a.localeCompare(b)).map(([k, items]) => [k, rates(items)]));
  const through = (encode: (text: string) => string) => rates(corpus.map((t) => ({ label: t.label, flagged: read(encode(t.text)) })));
  return {
    threshold,
    splits: { dev: splitOf('dev'), heldout: splitOf('heldout') },
    kinds,
    languages,
    encodings: Object.fromEntries(Object.entries(ENCODINGS).map(([name, encode]) => [name, through(encode)])),
    tables: Object.fromEntries(Object.entries(TABLES).map(([name, spread]) => [name, through(spread)])),
  };
}

const pct = (x: number | null) => (x === null ? '    -' : `${(x * 100).toFixed(1).padStart(5)}`);
const row = (name: string, r: SliceRates) => `${name.padEnd(22)} ${String(r.attacks).padStart(5)} ${pct(r.tpr)} ${String(r.benign).padStart(6)} ${pct(r.fpr)}`;

/** The report as `guardagent eval --detectors` prints it. */
export function formatIntentReport(report: IntentReport): string {
  const header = `${''.padEnd(22)} ${'inj'.padStart(5)} ${'TPR'.padStart(5)} ${'benign'.padStart(6)} ${'FPR'.padStart(5)}`;
  const lines = [`rails injection detector on the authored intents set, 22 languages (threshold ${report.threshold})`, header, '-'.repeat(header.length)];
  for (const split of ['dev', 'heldout'] as const) lines.push(row(split, report.splits[split]));
  lines.push('', 'by kind (both splits)');
  for (const [kind, r] of Object.entries(report.kinds)) lines.push(row(`  ${kind}`, r));
  lines.push('', 'by language (both splits)');
  for (const [lang, r] of Object.entries(report.languages)) lines.push(row(`  ${lang}`, r));
  lines.push('', 'every text hidden in an encoding');
  for (const [name, r] of Object.entries(report.encodings)) lines.push(row(`  ${name}`, r));
  lines.push('', 'every text spread over table cells');
  for (const [name, r] of Object.entries(report.tables)) lines.push(row(`  ${name}`, r));
  return `${lines.join('\n')}\n`;
}
