import { describe, expect, it } from 'vitest';
import { classifyTask, TASK_LEXICON } from '../src/packs/seeact';
import { categoryOfSynset, readTaskSenses, TASK_SENSES } from '../src/packs/seeact/task-senses';
import { nounHypernyms, wordSenses } from '../src/packs/seeact/wordnet';
import { FUNCTION_WORDS } from '../src/packs/seeact/english-reading';

const cats = (task: string): string[] => classifyTask(task).categories;

describe('wordSenses and nounHypernyms: WordNet read in place', () => {
  it('finds every sense of a lemma with its sense number and SemCor tag count, in every part of speech', () => {
    const tv = wordSenses('tv');
    expect(tv.map((s) => [s.pos, s.senseNumber]).sort()).toEqual([
      [1, 1],
      [1, 2],
    ]);
    // "TV" is mostly the medium (broadcasting), rarely the set.
    expect(tv.find((s) => s.senseNumber === 1)!.tagCount).toBeGreaterThan(tv.find((s) => s.senseNumber === 2)!.tagCount);
    // "seaplane" is a noun and a verb.
    expect(new Set(wordSenses('seaplane').map((s) => s.pos))).toEqual(new Set([1, 2]));
  });

  it('finds the first and the last lemma of the file, compounds, and nothing for a prefix of a lemma', () => {
    expect(wordSenses("'hood").length).toBe(1);
    expect(wordSenses('zymurgy').length).toBeGreaterThan(0);
    expect(wordSenses('sports_car').length).toBe(1);
    // "tv" is a prefix of "tv_announcer": only whole lemmas match.
    expect(wordSenses('tv_').length).toBe(0);
    expect(wordSenses('televisio').length).toBe(0);
  });

  it('answers nothing, without throwing, for hostile lemmas', () => {
    for (const lemma of ['', '%', 'tv%1', 'a b', '\n', 'x'.repeat(100_000), '\u0000', '\uffff'.repeat(40), '~~~~']) {
      expect(wordSenses(lemma)).toEqual([]);
    }
  });

  it('walks up: a jetliner is an airplane, a sedan a car', () => {
    const jetliner = wordSenses('jetliner').find((s) => s.pos === 1)!;
    const up = nounHypernyms(jetliner.offset);
    expect(up.length).toBeGreaterThan(0);
    expect(categoryOfSynset(jetliner.offset)).toBe('flight');
    expect(categoryOfSynset(wordSenses('sedan').find((s) => s.pos === 1 && s.senseNumber === 1)!.offset)).toBe('car');
    expect(nounHypernyms(-1)).toEqual([]);
    expect(nounHypernyms(Number.MAX_SAFE_INTEGER)).toEqual([]);
  });
});

describe('TASK_SENSES: categories as WordNet concepts', () => {
  it('every concept and exception names a noun sense of the shipped WordNet', () => {
    for (const { concepts, except } of Object.values(TASK_SENSES)) {
      for (const ref of [...concepts, ...except]) {
        expect(wordSenses(ref.lemma).some((s) => s.pos === 1 && s.senseNumber === ref.sense), `${ref.lemma} #${ref.sense}`).toBe(true);
      }
    }
  });
});

// Words written for these tests that no phrase list of the classifier names: the category comes
// from what the word means in WordNet.
describe('classifyTask: nouns no phrase names are read by meaning', () => {
  it.each([
    ['Find an airliner seat to Lisbon', 'flight', 'airliner'],
    ['Book a jetliner seat to Rome next Friday', 'flight', 'jetliner'],
    ['Find a convertible under $30,000', 'car', 'convertible'],
    ['Find a dune buggy near Phoenix', 'car', 'dune buggy'],
    ['Look for a hot rod for the weekend', 'car', 'hot rod'],
    ['Find a symphony by Dvorak', 'media', 'symphony'],
    ['Find a newsreel from 1945', 'media', 'newsreel'],
    ['Find the best late-night talk show', 'media', 'talk show'],
    ['What is on TV tonight?', 'media', 'tv'],
    ['Find a ski lodge near Aspen', 'hotel', 'ski lodge'],
    ['Find a professorship in chemistry', 'job', 'professorship'],
  ])('%s → %s', (task, category, word) => {
    const result = classifyTask(task);
    expect(result.categories).toEqual([category]);
    expect(result.evidence[category as 'car']).toContain(word);
  });

  it('does not read a word in a rare sense: a taxi someone else drives, a bus, special offers, lessons, staged works', () => {
    for (const task of [
      'Book a taxi to the airport',
      'Find the bus schedule for route 5',
      'Find special offers on running shoes',
      'Find piano lessons near me',
      'Find tickets for the opera on Saturday',
      'Find a Broadway musical for Sunday afternoon',
      'Find the position of the sun at noon',
      'Join a country club in Dallas',
      'Find a rock climbing gym',
    ]) {
      expect(cats(task), task).toEqual([]);
    }
  });

  it('television sets by make, size or screen are hardware, not media', () => {
    expect(cats('Compare 65-inch OLED TVs')).toEqual([]);
    expect(cats('Browse Hisense smart TVs that are refurbished')).toEqual([]);
    expect(cats('Find a TV stand for the living room')).toEqual([]);
  });

  it('never reclassifies a task a phrase already places', () => {
    // "music" is a phrase cue; "tv" would be read by meaning only if nothing else matched.
    expect(classifyTask('Play music on the TV').evidence).toEqual({ media: ['music'] });
    expect(classifyTask('Rent a car near the jetliner terminal').categories).toEqual(['car']);
  });

  it('masks still apply: a category look-alike is not read by meaning either', () => {
    expect(TASK_LEXICON.car.masks.some((m) => new RegExp(m.source).test('toy cars'))).toBe(true);
    expect(cats('Find toy convertibles for kids')).toEqual([]);
    expect(cats('Find a model jetliner kit')).toEqual([]);
    expect(cats('Find a die-cast convertible for my collection')).toEqual([]);
  });
});

describe('readTaskSenses: hostile and huge text', () => {
  it('reads at most the first 200 words, so a flood of invented words ends with nothing found', () => {
    const flood = Array.from({ length: 20_000 }, (_, i) => `zq${i.toString(36)}x`).join(' ');
    expect(readTaskSenses(flood, FUNCTION_WORDS)).toEqual({});
    expect(readTaskSenses(`${flood} sedan`, FUNCTION_WORDS)).toEqual({});
    expect(readTaskSenses(`sedan ${flood}`, FUNCTION_WORDS)).toEqual({ car: ['sedan'] });
  });

  it('skips words longer than any lemma, and function words', () => {
    expect(readTaskSenses(`${'a'.repeat(100_000)} jeep`, FUNCTION_WORDS)).toEqual({ car: ['jeep'] });
    expect(readTaskSenses('above', FUNCTION_WORDS)).toEqual({});
    expect(readTaskSenses('a sports car and a jetliner', FUNCTION_WORDS)).toEqual({ car: ['sports car', 'car'], flight: ['jetliner'] });
  });

  it('classifies a huge task with disguises and separators without growing: categories stay correct', () => {
    const task = `${'find\u00ad '.repeat(50_000)}a j\u0435tliner seat`;
    // The sense reading only sees the first 200 words: beyond them nothing is read.
    expect(cats(task)).toEqual([]);
    expect(cats('Find a j\u0435tliner seat to Oslo')).toEqual(['flight']);
  });
});
