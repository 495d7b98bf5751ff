import { describe, expect, it } from 'vitest';
import { evaluateDetector, evaluateInjectionDetector, evaluatePiiDetector, loadDetectorCorpus, loadPiiCorpus, type CorpusText } from '../src/index';

describe('evaluateDetector', () => {
  it('counts rates per split and family', () => {
    const corpus: CorpusText[] = [
      { text: 'bad one', label: 1, family: 'a', source: 's', split: 'dev' },
      { text: 'bad two', label: 1, family: 'a', source: 's', split: 'dev' },
      { text: 'fine', label: 0, family: 'b', source: 's', split: 'dev' },
      { text: 'bad but fine', label: 0, family: 'b', source: 's', split: 'heldout' },
    ];
    const report = evaluateDetector('toy', corpus, (t) => (t.startsWith('bad') ? 1 : 0), 0.5, 1);
    expect(report.splits.dev).toMatchObject({ n: 3, positives: 2, truePositives: 2, falsePositives: 0, tpr: 1, fpr: 0, precision: 1, f1: 1 });
    expect(report.splits.heldout).toMatchObject({ n: 1, positives: 0, falsePositives: 1, tpr: null, fpr: 1, precision: 0 });
    expect(report.families.dev.a).toMatchObject({ tpr: 1 });
    expect(report.families.heldout.b).toMatchObject({ fpr: 1 });
  });
});

describe('the bundled injection corpus', () => {
  const corpus = loadDetectorCorpus();

  it('holds both labels in both splits, and no text in both splits', () => {
    for (const split of ['dev', 'heldout'] as const) {
      expect(corpus.filter((t) => t.split === split && t.label === 1).length).toBeGreaterThan(1000);
      expect(corpus.filter((t) => t.split === split && t.label === 0).length).toBeGreaterThan(800);
    }
    const key = (t: CorpusText) => t.text.trim().toLowerCase().replace(/\s+/g, ' ');
    const dev = new Set(corpus.filter((t) => t.split === 'dev').map(key));
    expect(corpus.filter((t) => t.split === 'heldout' && dev.has(key(t))).length).toBe(0);
    for (const t of corpus) expect(t.source).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{7}:/);
  });

  it('the rails detector finds at least 60 % of held-out injections at no more than 1 % false positives (default threshold)', () => {
    const report = evaluateInjectionDetector(undefined, 1);
    expect(report.threshold).toBe(0.5);
    expect(report.splits.heldout.tpr).toBeGreaterThanOrEqual(0.6);
    expect(report.splits.heldout.fpr).toBeLessThanOrEqual(0.01);
  });
});

describe('the bundled PII corpus', () => {
  it('spans lie inside their texts, and both splits hold spans', () => {
    const corpus = loadPiiCorpus();
    expect(corpus.length).toBe(1500);
    for (const t of corpus) for (const s of t.spans) expect(s.end <= t.text.length && s.start < s.end).toBe(true);
    for (const split of ['dev', 'heldout'] as const) expect(corpus.filter((t) => t.split === split).flatMap((t) => t.spans).length).toBeGreaterThan(100);
  });

  it('the rails PII detector reaches micro-F1 0.90 on the held-out half', () => {
    const report = evaluatePiiDetector(undefined, 1);
    expect(report.splits.heldout.f1).toBeGreaterThanOrEqual(0.9);
    expect(report.splits.heldout.precision).toBeGreaterThanOrEqual(0.95);
  });
});
