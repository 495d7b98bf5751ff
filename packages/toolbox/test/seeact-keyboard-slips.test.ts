import { describe, expect, it } from 'vitest';
import { cueWords } from '../src/packs/seeact/cue-words';
import { isEnglishWord } from '../src/packs/seeact/english-reading';
import { keyboardSlips, readSlips, slipIndex } from '../src/packs/seeact/keyboard-slips';

describe('keyboardSlips', () => {
  it('makes each kind of slip, keeping the first letter', () => {
    const slips = keyboardSlips('flight');
    expect(slips.has('flght')).toBe(true); // dropped
    expect(slips.has('flihgt')).toBe(true); // neighbours swapped
    expect(slips.has('flighr')).toBe(true); // r is next to t
    expect(slips.has('fliight')).toBe(true); // doubled
    expect(slips.has('flighty')).toBe(true); // y is next to t, typed after it
    expect(slips.has('light')).toBe(false); // the first letter dropped
    expect(slips.has('glight')).toBe(false); // the first letter a next key
    expect(slips.has('flighx')).toBe(false); // x is far from t
    expect(slips.has('flight')).toBe(false);
  });
});

describe('slipIndex and readSlips', () => {
  const index = slipIndex(['flight', 'hotel', 'car', 'cart', 'cars']);

  it('reads a slip of a vocabulary word as that word, and every word an ambiguous slip may be', () => {
    expect(readSlips('book a flihgt to boston', index, () => false)).toEqual({ text: 'book a flight to boston', slips: ['flihgt'] });
    expect(readSlips('a hitel in rome', index, () => false).text).toBe('a hotel in rome');
    expect(readSlips('rent a carr', index, () => false)).toEqual({ text: 'rent a car cart', slips: ['carr'] });
  });

  it('leaves words of their own alone: "care" is no slip of "car", nor a vocabulary word of another', () => {
    const isWord = (w: string) => ['care', 'cats'].includes(w);
    expect(readSlips('take care of the cats', index, isWord)).toEqual({ text: 'take care of the cats', slips: [] });
    // A vocabulary word is never the slip of another ("cars" stays "cars", not "cart").
    expect(readSlips('cars', index, () => false).text).toBe('cars');
  });

  it('does not read short words (3 letters) as slips: too many are one letter apart', () => {
    expect(slipIndex(['job']).has('jbo')).toBe(false);
    expect(slipIndex(['jobs']).get('jbos')).toEqual(['jobs']);
  });

  it('reads a hostile 2 MB text word by word, each word one lookup', () => {
    const text = 'flihgt zzzz '.repeat(180_000);
    const read = readSlips(text, index, () => false);
    expect(read.text.startsWith('flight zzzz flight')).toBe(true);
    expect(read.text.length).toBe(text.length);
    expect(read.slips.length).toBe(10); // the list is bounded
    // One word of 2 MB: no slip of a vocabulary word, left as it is.
    const long = 'f'.repeat(2_000_000);
    expect(readSlips(long, index, () => false).text).toBe(long);
  });
});

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
