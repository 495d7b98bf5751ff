import { hasNonAscii } from './normalize-text';

/** What may stand between the letters of a spelled-out word ("b u y", "b.u.y", "b-u-y", "i*g*n"). */
const SEPARATORS = ' .*_\u00b7\u2022|/+~-';
const SEP = `[${SEPARATORS}]`;
/** The separators that are ASCII, for the fast test of ASCII text. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: \x00 is the lower bound of the ASCII range this class excludes
const ASCII_SEP = `[${SEPARATORS.replace(/[^\x00-\x7f]/g, '')}]`;

/**
 * Three or more single letters in a row, each followed by one separator. A letter or digit on
 * either side ends the run, so words and numbers are never cut. Separators and letters are
 * disjoint, so one pass reads the text (linear).
 */
const SPELLED_RUN = new RegExp(`(?<![\\p{L}\\p{N}])\\p{L}(?:${SEP}\\p{L}(?![\\p{L}\\p{N}])){2,}`, 'gu');
/** The same runs in ASCII text, tested first: about five times cheaper than the Unicode classes, and most text is ASCII. */
const ASCII_SPELLED_RUN = new RegExp(`(?<![A-Za-z0-9])[A-Za-z](?:${ASCII_SEP}[A-Za-z](?![A-Za-z0-9])){2,}`);
/**
 * What any run has, in classes V8 tests quickly (no Unicode properties): separator, one character
 * that is no blank, digit or separator, separator, another, separator. Text without it has no run;
 * text with it is then read with SPELLED_RUN (over ten times slower per character).
 */
const NOT_SEP = `[^\\s\\d${SEPARATORS}]`;
const SPELLED_HINT = new RegExp(`${SEP}${NOT_SEP}${SEP}${NOT_SEP}${SEP}`, 'u');

/** The patterns this module runs on job text, for the linear-time proof (test/linear-patterns). */
export const SPELLED_PATTERNS: readonly RegExp[] = [SPELLED_RUN, ASCII_SPELLED_RUN, SPELLED_HINT];

/** One-letter English words ("a", "I"): at the edge of a run spelled with spaces they may be words of their own. */
const ONE_LETTER_WORDS = new Set(['a', 'A', 'I']);

export interface JoinOptions {
  /**
   * Keep a lone "a", "A" or "I" at either end of a run spelled with spaces as a word ("B u y a
   * sofa" → "Buy a sofa"); otherwise it joins too ("Buya sofa", but "s o f a" → "sofa"). Which
   * is right cannot be told from the letters, so a reader that needs both asks for both.
   */
  edgeWords?: boolean;
}

/**
 * `text` with words spelled out letter by letter joined back ("B.u.y a sofa" → "Buy a sofa",
 * "i g n o r e" → "ignore"): a rewrite anyone makes in a second that a reader (or an LLM) still
 * reads as the word, and a matcher of whole words does not. Returns `text` itself when it has no
 * such run. Not the same length as the input: use it for an extra reading, never for offsets.
 * Two or more spaces between spelled-out words keep them apart ("a l l  p r e v i o u s"). A
 * run of more than 64 letters is left as written.
 */
export function joinSpelledLetters(text: string, options: JoinOptions = {}): string {
  if (hasNonAscii(text)) {
    // A run at the very start or end of the text has only one separator around it: pad for the hint.
    if (!SPELLED_HINT.test(` ${text} `)) return text;
    SPELLED_RUN.lastIndex = 0;
    if (!SPELLED_RUN.test(text)) return text;
  } else if (!ASCII_SPELLED_RUN.test(text)) {
    return text;
  }
  return text.replace(SPELLED_RUN, (run) => {
    // A word is short; a longer run (a sentence spelled with single spaces, or filler such as
    // "a_a_a_…") would join into no word anyone reads, and costs a copy of itself to join.
    if (run.length > MAX_RUN_CHARS) return run;
    // The run alternates letter, separator, letter… (by code point: a letter may be astral); a
    // word is spelled with one separator, so a change of separator ends it ("B.u.y a": "B.u.y" is
    // a word, " a" is not part of it).
    const chars = Array.from(run);
    const letters = (chars.length + 1) / 2;
    let out = '';
    let i = 0;
    while (i < letters) {
      const sep = chars[2 * i + 1];
      let j = i;
      while (j + 1 < letters && chars[2 * j + 1] === sep) j++;
      if (j - i + 1 >= MIN_LETTERS) {
        const word = chars.slice(2 * i, 2 * j + 1).filter((_, k) => k % 2 === 0);
        out += joinWord(word, sep === ' ' && options.edgeWords === true);
        i = j + 1;
      } else {
        out += chars[2 * i];
        i++;
      }
      if (i < letters) out += chars[2 * i - 1];
    }
    return out;
  });
}

const MIN_LETTERS = 3;
/** Longest run joined: 64 letters and their separators. */
const MAX_RUN_CHARS = 127;

function joinWord(letters: string[], edgeWords: boolean): string {
  if (!edgeWords) return letters.join('');
  const head = ONE_LETTER_WORDS.has(letters[0]!) && letters.length > MIN_LETTERS ? `${letters.shift()} ` : '';
  const tail = ONE_LETTER_WORDS.has(letters.at(-1)!) && letters.length > MIN_LETTERS ? ` ${letters.pop()}` : '';
  return head + letters.join('') + tail;
}

/** Both joined readings of `text` (see JoinOptions.edgeWords), one per line, or `text` itself when it has no spelled-out run. */
export function spelledReadings(text: string): string {
  const joined = joinSpelledLetters(text);
  if (joined === text) return text;
  const withEdgeWords = joinSpelledLetters(text, { edgeWords: true });
  return withEdgeWords === joined ? joined : `${joined}\n${withEdgeWords}`;
}
