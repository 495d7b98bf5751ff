import { describe, expect, it } from 'vitest';
import { cueWords } from '../src/packs/seeact/cue-words';
import { isLemmaForm } from '../src/packs/seeact/english-reading';
import { readWordBreaks, wordBreakReader } from '@guardagent/rails';

describe('readWordBreaks with the classifier\'s cue words and WordNet (the generic cases: packages/rails/test/word-breaks.test.ts)', () => {
  it('with the real cue words and WordNet', () => {
    const real = wordBreakReader({ cueWords: cueWords(), isWord: isLemmaForm });
    expect(readWordBreaks('book a hotelroom and a fli ght', real).text).toBe('book a hotel room and a flight');
    for (const word of ['carpet', 'cartoon', 'cargo', 'career', 'airport', 'jobless']) expect(readWordBreaks(word, real).changed, word).toEqual([]);
  });
});
