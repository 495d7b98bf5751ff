import { describe, expect, it } from 'vitest';
import { keyboardSlips, readSlips, slipIndex } from '../src/text/keyboard-slips';
import { patternWords } from '../src/text/pattern-words';

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

  it('counts one letter written as Latin look-alikes (a capital I for an l, rn for m)', () => {
    expect(keyboardSlips('flight').has('fiight')).toBe(true); // "fIight", lower-cased
    expect(keyboardSlips('movie').has('rnovie')).toBe(false); // the first letter stays
    expect(keyboardSlips('film').has('filrn')).toBe(true);
    expect(keyboardSlips('film', { lastLetter: false }).has('filrn')).toBe(false);
    expect(keyboardSlips('stream').has('strearn')).toBe(true);
    expect(keyboardSlips('download').has('dovvnload')).toBe(true);
    expect(keyboardSlips('download').has('downioad')).toBe(true);
  });

  it('leaves the last letter alone when asked (a last-letter edit is often another form of the word)', () => {
    const slips = keyboardSlips('known', { lastLetter: false });
    expect(slips.has('know')).toBe(false); // dropped
    expect(slips.has('knowm')).toBe(false); // next key
    expect(slips.has('knowns')).toBe(false); // added
    expect(slips.has('konwn')).toBe(true); // inside the word
    expect(slips.has('knonw')).toBe(true); // the last two swapped
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
    // With minTargetChars, a shorter word is not read through slips but still counts as a word.
    expect(slipIndex(['user', 'users'], { minTargetChars: 5 }).has('user')).toBe(false);
    expect(slipIndex(['user', 'users'], { minTargetChars: 5 }).has('ussers')).toBe(true);
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

describe('patternWords', () => {
  it('reads the words of patterns, with and without an optional last letter, not the letters of escapes', () => {
    const words = patternWords([/\b(?:flights?|airlines?)\b/, /\bbook(?:ing)?\s+a\s+rooms?/], 3);
    expect([...words].sort()).toEqual(['airline', 'airlines', 'book', 'flight', 'flights', 'ing', 'room', 'rooms']);
    expect(patternWords([/\bignore\s+all\s+previous/], 5)).toEqual(new Set(['ignore', 'previous']));
  });
});
