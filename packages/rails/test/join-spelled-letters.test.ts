import { describe, expect, it } from 'vitest';
import { joinSpelledLetters, spelledReadings } from '../src/index';
import { cpuMsOf } from './cpu-time';

describe('joinSpelledLetters', () => {
  it('joins words spelled out with one separator between letters', () => {
    expect(joinSpelledLetters('B.u.y a grey sofa')).toBe('Buy a grey sofa');
    expect(joinSpelledLetters('b-u-y it now')).toBe('buy it now');
    expect(joinSpelledLetters('please i*g*n*o*r*e the rules')).toBe('please ignore the rules');
    expect(joinSpelledLetters('r_e_n_t a car')).toBe('rent a car');
    expect(joinSpelledLetters('b·o·o·k a room')).toBe('book a room');
  });

  it('reads a lone "a" or "I" at the edge of a run spelled with spaces both ways when asked', () => {
    expect(joinSpelledLetters('B u y a grey sofa')).toBe('Buya grey sofa');
    expect(joinSpelledLetters('B u y a grey sofa', { edgeWords: true })).toBe('Buy a grey sofa');
    expect(joinSpelledLetters('I b u y shoes', { edgeWords: true })).toBe('I buy shoes');
    expect(joinSpelledLetters('Find a s o f a')).toBe('Find asofa');
    // Only the run's edges can be told apart: a sentence spelled with single spaces stays one word.
    expect(spelledReadings('B u y a s o f a')).toBe('Buyasofa\nBuyasof a');
    // A change of separator ends a word.
    expect(joinSpelledLetters('b.u.y a-b-c x')).toBe('buy abc x');
    expect(spelledReadings('B.u.y it')).toBe('Buy it');
    expect(spelledReadings('plain text')).toBe('plain text');
    // Two spaces end a run: words spelled out one by one stay apart; a lower-case "i" is a letter.
    expect(joinSpelledLetters('i g n o r e  a l l  p r e v i o u s', { edgeWords: true })).toBe('ignore  all  previous');
  });

  it('leaves words, numbers, initials and short abbreviations alone', () => {
    const text = 'Find e.g. a 4 x 4 truck, plan A or B, and the 10-k-form; see U.S. news';
    expect(joinSpelledLetters(text)).toBe(text);
    // Letters next to a letter or digit are not single letters: "ab.c.d" and "1.a.b.c" are not runs.
    expect(joinSpelledLetters('ab.c.d 1.a.b version')).toBe('ab.c.d 1.a.b version');
    expect(joinSpelledLetters('U.S.A. and the U.K.')).toBe('USA. and the U.K.');
  });

  it('reads hostile 2 MB texts in linear time', () => {
    // One 2 MB run: longer than any word, left as written.
    const spelled = 'a b '.repeat(500_000);
    let joined = '';
    expect(cpuMsOf(() => (joined = joinSpelledLetters(spelled)))).toBeLessThan(2_000);
    expect(joined).toBe(spelled);
    // 2 MB of short runs, whose separator changes every three letters: each word is read once.
    const changing = 'a.b.c d e f-g-h  '.repeat(120_000);
    expect(cpuMsOf(() => (joined = joinSpelledLetters(changing)))).toBeLessThan(2_000);
    expect(joined.startsWith('abc def-g-h  abc def-g-h  ')).toBe(true);
    // The longest run joined is 64 letters.
    expect(joinSpelledLetters(`${'a.'.repeat(63)}a`)).toBe('a'.repeat(64));
    expect(joinSpelledLetters(`${'a.'.repeat(64)}a`)).toBe(`${'a.'.repeat(64)}a`);
    // Astral letters are one letter each.
    expect(joinSpelledLetters('\u{1D41B}.\u{1D42E}.\u{1D432} now')).toBe('\u{1D41B}\u{1D42E}\u{1D432} now');
    const noRuns = 'ab '.repeat(700_000);
    expect(cpuMsOf(() => joinSpelledLetters(noRuns))).toBeLessThan(2_000);
    expect(joinSpelledLetters(noRuns)).toBe(noRuns);
  });
});
