import type { CorpusText } from './detector-corpus';

/** Counts and rates for one slice of a corpus. Rates are null where their denominator is 0. */
export interface DetectionStats {
  n: number;
  positives: number;
  negatives: number;
  truePositives: number;
  falsePositives: number;
  tpr: number | null;
  fpr: number | null;
  precision: number | null;
  f1: number | null;
}

export interface DetectorReport {
  detector: string;
  threshold: number;
  /** Per split (dev, heldout) and all together. */
  splits: Record<'dev' | 'heldout' | 'all', DetectionStats>;
  /** Per split, per family: a family of injections reports its TPR, a benign family its FPR. */
  families: Record<'dev' | 'heldout', Record<string, DetectionStats>>;
  /** Mean time per text over the whole corpus (µs), best of the timed rounds. */
  microsPerText: number;
}

const round = (x: number | null) => (x === null ? null : Math.round(x * 10_000) / 10_000);

function stats(items: ReadonlyArray<{ label: 0 | 1; flagged: boolean }>): DetectionStats {
  const positives = items.filter((i) => i.label === 1).length;
  const negatives = items.length - positives;
  const truePositives = items.filter((i) => i.label === 1 && i.flagged).length;
  const falsePositives = items.filter((i) => i.label === 0 && i.flagged).length;
  const tpr = positives ? truePositives / positives : null;
  const fpr = negatives ? falsePositives / negatives : null;
  const precision = truePositives + falsePositives ? truePositives / (truePositives + falsePositives) : null;
  const f1 = tpr !== null && precision !== null && tpr + precision > 0 ? (2 * tpr * precision) / (tpr + precision) : null;
  return { n: items.length, positives, negatives, truePositives, falsePositives, tpr: round(tpr), fpr: round(fpr), precision: round(precision), f1: round(f1) };
}

/**
 * Run `score` over every text and compare `score >= threshold` with the labels. `rounds` timed
 * passes over the corpus give µs per text (the best round, so a busy machine inflates it least).
 */
export function evaluateDetector(detector: string, corpus: readonly CorpusText[], score: (text: string) => number, threshold: number, rounds = 3): DetectorReport {
  const flagged = corpus.map((t) => ({ ...t, flagged: score(t.text) >= threshold }));
  let best = Infinity;
  for (let r = 0; r < rounds; r += 1) {
    const started = process.hrtime.bigint();
    for (const t of corpus) score(t.text);
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1000 / Math.max(1, corpus.length));
  }
  const families: DetectorReport['families'] = { dev: {}, heldout: {} };
  for (const split of ['dev', 'heldout'] as const) {
    const inSplit = flagged.filter((t) => t.split === split);
    for (const family of [...new Set(inSplit.map((t) => t.family))].sort()) families[split][family] = stats(inSplit.filter((t) => t.family === family));
  }
  return {
    detector,
    threshold,
    splits: { dev: stats(flagged.filter((t) => t.split === 'dev')), heldout: stats(flagged.filter((t) => t.split === 'heldout')), all: stats(flagged) },
    families,
    microsPerText: Math.round(best * 10) / 10,
  };
}
