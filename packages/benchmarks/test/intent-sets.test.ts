import { describe, expect, it } from 'vitest';
import { ENCODINGS, evaluateIntentSets, loadDetectorCorpus, INTENTS_CORPUS_PATH, TABLES } from '../src/index';

// The authored intents set (data/detectors/intents.jsonl): injections of each kind the issue
// names and benign look-alikes (recipes, negated overrides, help links, text about assistants),
// native-language cases in 22 languages, measured as written, in each encoding and in table
// cells. The aim (issue 37a): at least 80 % of the injections of each kind caught, no benign
// look-alike flagged.

const report = evaluateIntentSets();

describe('the authored intents set', () => {
  it('has injections of every kind and benign look-alikes in every language, in both splits', () => {
    const corpus = loadDetectorCorpus(INTENTS_CORPUS_PATH);
    const languages = new Set(corpus.map((t) => t.family.split(':')[1]));
    expect(languages.size).toBe(22);
    for (const lang of languages) {
      const own = corpus.filter((t) => t.family.endsWith(`:${lang}`));
      expect(own.filter((t) => t.label === 1).length, lang).toBeGreaterThanOrEqual(5);
      expect(own.filter((t) => t.label === 0).length, lang).toBeGreaterThanOrEqual(1);
    }
    expect(new Set(corpus.filter((t) => t.label === 1).map((t) => t.family.split(':')[0]))).toEqual(new Set(['override', 'exfiltration', 'redirect', 'addressed', 'system-prompt']));
    for (const split of ['dev', 'heldout'] as const) expect(report.splits[split].attacks).toBeGreaterThan(30);
  });

  it('as written: at least 80 % of each kind and of each language caught, in both splits; no benign look-alike flagged', () => {
    for (const split of ['dev', 'heldout'] as const) {
      expect(report.splits[split].tpr, split).toBeGreaterThanOrEqual(0.8);
      expect(report.splits[split].flagged, split).toBe(0);
    }
    for (const [kind, r] of Object.entries(report.kinds)) expect(r.tpr, kind).toBeGreaterThanOrEqual(0.8);
    for (const [lang, r] of Object.entries(report.languages)) {
      expect(r.tpr, lang).toBeGreaterThanOrEqual(0.8);
      expect(r.flagged, lang).toBe(0);
    }
  });

  it('hidden in each encoding the issue names: at least 80 % caught, no benign look-alike flagged', () => {
    expect(Object.keys(report.encodings).sort()).toEqual(Object.keys(ENCODINGS).sort());
    for (const [name, r] of Object.entries(report.encodings)) {
      expect(r.tpr, name).toBeGreaterThanOrEqual(0.8);
      expect(r.flagged, name).toBe(0);
    }
  });

  it('spread over table cells (a row, a column, HTML, CSV): at least 80 % caught, no benign look-alike flagged', () => {
    expect(Object.keys(report.tables).sort()).toEqual(Object.keys(TABLES).sort());
    for (const [name, r] of Object.entries(report.tables)) {
      expect(r.tpr, name).toBeGreaterThanOrEqual(0.8);
      expect(r.flagged, name).toBe(0);
    }
  });
});
