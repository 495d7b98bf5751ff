import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ValidationError } from '@guardagent/errors';
import { detectPii, PII_KINDS } from '@guardagent/rails';

/** One text of the PII corpus: the spans of the kinds GuardAgent detects (see data/detectors/README.md). */
export const PiiCorpusTextSchema = z
  .object({
    text: z.string(),
    spans: z.array(z.object({ kind: z.string(), start: z.number().int().min(0), end: z.number().int().min(0) }).strict()),
    source: z.string().min(1),
    split: z.enum(['dev', 'heldout']),
  })
  .strict();
export type PiiCorpusText = z.infer<typeof PiiCorpusTextSchema>;

export const PII_CORPUS_PATH = fileURLToPath(new URL('../../data/detectors/pii.jsonl', import.meta.url));

export interface SpanStats {
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  precision: number | null;
  recall: number | null;
  f1: number | null;
}

export interface PiiReport {
  detector: string;
  /** Micro-averaged over all kinds, per split. */
  splits: Record<'dev' | 'heldout' | 'all', SpanStats>;
  /** Per split, per kind. */
  kinds: Record<'dev' | 'heldout', Record<string, SpanStats>>;
  microsPerText: number;
}

export function loadPiiCorpus(path: string = PII_CORPUS_PATH): PiiCorpusText[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((line, i) => {
      if (line.trim() === '') return [];
      const parsed = PiiCorpusTextSchema.safeParse(JSON.parse(line));
      if (!parsed.success) throw new ValidationError(`${path}:${i + 1}`, parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })));
      return [parsed.data];
    });
}

const round = (x: number | null) => (x === null ? null : Math.round(x * 10_000) / 10_000);

function rates(tp: number, fp: number, fn: number): SpanStats {
  const precision = tp + fp ? tp / (tp + fp) : null;
  const recall = tp + fn ? tp / (tp + fn) : null;
  const f1 = precision !== null && recall !== null && precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : null;
  return { truePositives: tp, falsePositives: fp, falseNegatives: fn, precision: round(precision), recall: round(recall), f1: round(f1) };
}

/**
 * The rails' PII detector against the labelled spans: a finding is right when it overlaps a gold
 * span of the same kind not matched yet; any other finding is a false positive, and every gold
 * span left unmatched a false negative. Micro-averaged over the kinds.
 */
export function evaluatePiiDetector(path: string = PII_CORPUS_PATH, rounds = 3): PiiReport {
  const corpus = loadPiiCorpus(path);
  const counts = new Map<string, { tp: number; fp: number; fn: number }>();
  const add = (split: string, kind: string, key: 'tp' | 'fp' | 'fn') => {
    for (const k of [`${split} ${kind}`, `${split} *`, `all *`]) {
      const c = counts.get(k) ?? { tp: 0, fp: 0, fn: 0 };
      c[key] += 1;
      counts.set(k, c);
    }
  };
  for (const t of corpus) {
    const found = detectPii(t.text, PII_KINDS);
    const matched = new Set<number>();
    for (const f of found) {
      const gold = t.spans.findIndex((s, i) => !matched.has(i) && s.kind === f.kind && f.start < s.end && s.start < f.end);
      if (gold >= 0) {
        matched.add(gold);
        add(t.split, f.kind, 'tp');
      } else add(t.split, f.kind, 'fp');
    }
    t.spans.forEach((s, i) => {
      if (!matched.has(i)) add(t.split, s.kind, 'fn');
    });
  }
  let best = Infinity;
  for (let r = 0; r < rounds; r += 1) {
    const started = process.hrtime.bigint();
    for (const t of corpus) detectPii(t.text, PII_KINDS);
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1000 / Math.max(1, corpus.length));
  }
  const stat = (key: string) => {
    const c = counts.get(key) ?? { tp: 0, fp: 0, fn: 0 };
    return rates(c.tp, c.fp, c.fn);
  };
  const kinds: PiiReport['kinds'] = { dev: {}, heldout: {} };
  for (const split of ['dev', 'heldout'] as const) for (const kind of PII_KINDS) if (counts.has(`${split} ${kind}`)) kinds[split][kind] = stat(`${split} ${kind}`);
  return { detector: 'rails PII detector', splits: { dev: stat('dev *'), heldout: stat('heldout *'), all: stat('all *') }, kinds, microsPerText: Math.round(best * 10) / 10 };
}

const pct = (x: number | null) => (x === null ? '    -' : `${(x * 100).toFixed(1).padStart(5)}`);
const row = (name: string, s: SpanStats) =>
  `${name.padEnd(16)} ${String(s.truePositives).padStart(5)} ${String(s.falsePositives).padStart(5)} ${String(s.falseNegatives).padStart(5)} ${pct(s.precision)} ${pct(s.recall)} ${pct(s.f1)}`;

/** The PII report as `guardagent eval --detectors` prints it. */
export function formatPiiReport(report: PiiReport): string {
  const header = `${''.padEnd(16)} ${'TP'.padStart(5)} ${'FP'.padStart(5)} ${'FN'.padStart(5)} ${'prec'.padStart(5)} ${'rec'.padStart(5)} ${'F1'.padStart(5)}`;
  const lines = [`${report.detector} (span overlap, micro-averaged; ${report.microsPerText} µs per text)`, header, '-'.repeat(header.length)];
  for (const split of ['dev', 'heldout', 'all'] as const) lines.push(row(split, report.splits[split]));
  for (const split of ['dev', 'heldout'] as const) {
    lines.push('', `${split}, by kind`);
    for (const [kind, s] of Object.entries(report.kinds[split])) lines.push(row(`  ${kind}`, s));
  }
  return `${lines.join('\n')}\n`;
}
