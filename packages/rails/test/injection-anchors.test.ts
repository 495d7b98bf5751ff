import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { normalizeText } from '../src/index';
import { anchorWordsIn } from '../src/injection/detect-injection';
import { PHRASE_PATTERNS } from '../src/injection/injection-patterns';

// A phrase pattern runs only on texts where the rail's scan found one of its anchor words (and
// one of its `also` words): a match with none would be a miss the gate made. Every match on the
// public corpus and on the authored set must have them.

const corpus = (file: string) =>
  readFileSync(fileURLToPath(new URL(`../../benchmarks/data/detectors/${file}`, import.meta.url)), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { text: string }).text);
const texts = [...corpus('injection.jsonl'), ...corpus('intents.jsonl')];
// As the patterns read text: folded, lower case, blanks collapsed.
const read = (text: string) => normalizeText(text.toLowerCase()).text.replace(/[ \t\r\f\v]+/g, ' ');

describe('phrase pattern anchors', () => {
  it('every match of every pattern on the corpora has one of its anchors (and of its second set)', () => {
    const misses: string[] = [];
    let matches = 0;
    for (const text of texts) {
      const folded = read(text);
      const matching = PHRASE_PATTERNS.filter((p) => p.regex.test(folded));
      if (matching.length === 0) continue;
      const seen = anchorWordsIn(text);
      for (const p of matching) {
        matches++;
        const ok = p.anchors.some((w) => seen.has(w)) && (!p.also || p.also.some((w) => seen.has(w)));
        if (!ok) misses.push(`${p.signal} /${p.regex.source.slice(0, 40)}/ on ${JSON.stringify(text.slice(0, 60))}`);
      }
    }
    expect(matches).toBeGreaterThan(2000);
    expect(misses).toEqual([]);
  });

  it('anchors are whole lower-case words', () => {
    for (const p of PHRASE_PATTERNS) for (const w of [...p.anchors, ...(p.also ?? [])]) expect(w).toMatch(/^[a-z]+$/);
  });
});
