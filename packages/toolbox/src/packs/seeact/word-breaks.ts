/**
 * Word breaks moved to hide a word of the task classifier's cues: a cue word broken in two ("fli
 * ght", "ho-tel", "fl.ight") or run into the next word ("rentalcar", "airtickets", "hotelroom").
 * A reader, human or model, reads through both; the phrase patterns need the word whole and
 * alone.
 */

/**
 * A fragment, one separator, and (looked at, not consumed, so that it can pair with the next
 * one too) the fragment after it. Each fragment is read at most twice: linear.
 */
const FRAGMENT_PAIR = /\b([a-z]+)[ .-](?=([a-z]+)\b)/g;
const WORD = /[a-z]+/g;
/** Shortest part a run-together word is split into ("car", "air"). */
const MIN_PART_CHARS = 3;
/** Longest word tried for a split: each split point is two lookups. */
const MAX_SPLIT_CHARS = 30;

export interface WordBreakReading {
  text: string;
  /** The words as written that were rejoined or split, at most MAX_LISTED. */
  changed: string[];
}
const MAX_LISTED = 10;

export interface WordBreakDeps {
  /** The words of the cues. */
  cueWords: ReadonlySet<string>;
  /** Whether a word is an English word as it stands (a lemma, or one inflected: not a compound). */
  isWord: (word: string) => boolean;
}

/**
 * `text` with broken cue words joined and run-together ones split:
 * - two fragments with one space, hyphen or dot between them, that together make a cue word and
 *   are not both words ("fli ght", "ho-tel"; "show times" stays as written, both are words);
 * - a word that is not an English word as it stands, made of two parts of three letters or more
 *   of which one is a cue word and the other a cue word or an English word ("rentalcar" is
 *   "rental car"; "carpet" is a word and stays whole).
 * WordNet is asked only about a word that has a cue word in it.
 */
export function readWordBreaks(text: string, { cueWords, isWord }: WordBreakDeps): WordBreakReading {
  const changed: string[] = [];
  const note = (written: string) => {
    if (changed.length < MAX_LISTED) changed.push(written);
  };
  const joined = text.replace(FRAGMENT_PAIR, (leftAndSeparator, left: string, right: string) => {
    if (!cueWords.has(left + right) || (isWord(left) && isWord(right))) return leftAndSeparator;
    note(leftAndSeparator + right);
    return left; // the separator goes; `right` follows as it is
  });
  const split = joined.replace(WORD, (word) => {
    if (word.length < 2 * MIN_PART_CHARS || word.length > MAX_SPLIT_CHARS || cueWords.has(word)) return word;
    for (let i = MIN_PART_CHARS; i <= word.length - MIN_PART_CHARS; i++) {
      const left = word.slice(0, i);
      const right = word.slice(i);
      const leftCue = cueWords.has(left);
      const rightCue = cueWords.has(right);
      if (!leftCue && !rightCue) continue;
      if (isWord(word)) return word;
      if ((leftCue || isWord(left)) && (rightCue || isWord(right))) {
        note(word);
        return `${left} ${right}`;
      }
    }
    return word;
  });
  return { text: split, changed };
}
