import { describe, expect, it } from 'vitest';
import { cueWords } from '../src/packs/seeact/cue-words';
import { isLemmaForm } from '../src/packs/seeact/english-reading';
import { readWordBreaks, wordBreakReader } from '../src/packs/seeact/word-breaks';

const deps = wordBreakReader({ cueWords: new Set(['flight', 'hotel', 'car', 'showtimes', 'ticket', 'tickets']), isWord: (w: string) => ['show', 'times', 'rental', 'air', 'carpet', 'room', 'to', 'a', 'book'].includes(w) });

describe('readWordBreaks', () => {
  it('joins a cue word broken by one space, hyphen or dot', () => {
    expect(readWordBreaks('book a fli ght to boston', deps)).toEqual({ text: 'book a flight to boston', changed: ['fli ght'] });
    expect(readWordBreaks('a ho-tel', deps).text).toBe('a hotel');
    expect(readWordBreaks('a fl.ight', deps).text).toBe('a flight');
    // After a word that pairs with nothing: each fragment is tried with the next.
    expect(readWordBreaks('to fli ght', deps).text).toBe('to flight');
  });

  it('leaves two words alone even when together they make a cue word', () => {
    expect(readWordBreaks('show times for the museum', deps)).toEqual({ text: 'show times for the museum', changed: [] });
  });

  it('splits a run-together word with a cue word in it, unless it is a word as it stands', () => {
    expect(readWordBreaks('find a rentalcar', deps)).toEqual({ text: 'find a rental car', changed: ['rentalcar'] });
    expect(readWordBreaks('cheap airtickets', deps).text).toBe('cheap air tickets');
    expect(readWordBreaks('a new carpet', deps)).toEqual({ text: 'a new carpet', changed: [] });
    // The other part must be a word: "carxyz" is not "car" and "xyz".
    expect(readWordBreaks('carxyz', deps).changed).toEqual([]);
  });

  it('with the real cue words and WordNet', () => {
    const real = wordBreakReader({ cueWords: cueWords(), isWord: isLemmaForm });
    expect(readWordBreaks('book a hotelroom and a fli ght', real).text).toBe('book a hotel room and a flight');
    for (const word of ['carpet', 'cartoon', 'cargo', 'career', 'airport', 'jobless']) expect(readWordBreaks(word, real).changed, word).toEqual([]);
  });

  it('reads hostile 2 MB texts in one pass each', () => {
    const pairs = 'ab cd '.repeat(350_000);
    expect(readWordBreaks(pairs, deps).text).toBe(pairs);
    const fragments = 'ho tel '.repeat(290_000);
    const read = readWordBreaks(fragments, deps);
    expect(read.text.startsWith('hotel hotel ')).toBe(true);
    expect(read.changed.length).toBe(10);
    const long = 'car'.repeat(700_000);
    expect(readWordBreaks(long, deps).text).toBe(long); // longer than any word tried for a split
  });
});
