import { describe, expect, it } from 'vitest';
import { readSlips, slipIndex } from '@guardagent/rails';
import { cueWords } from '../src/packs/seeact/cue-words';
import { isEnglishWord } from '../src/packs/seeact/english-reading';

describe('cueWords', () => {
  it('reads the words of the classifier cues, with and without an optional last letter', () => {
    const words = cueWords();
    for (const word of ['flight', 'flights', 'hotel', 'movie', 'movies', 'cart', 'purchase', 'toyota']) expect(words.has(word), word).toBe(true);
    // Escapes are not words: "\bflights" does not give "bflights".
    expect([...words].some((w) => w.startsWith('bfl') || w.startsWith('bho'))).toBe(false);
  });

  it('with WordNet: English words are not slips of cue words ("care", "cats", "card")', () => {
    const index = slipIndex(cueWords());
    expect(readSlips('take care of my cats and my card', index, isEnglishWord).slips).toEqual([]);
    expect(readSlips('book a flihgt and a hotle', index, isEnglishWord)).toEqual({ text: 'book a flight and a hotel', slips: ['flihgt', 'hotle'] });
  });
});
