/**
 * Word breaks moved to hide a word of the task classifier's cues: a cue word broken in two ("fli
 * ght", "ho-tel", "fl.ight") or run into the next word ("rentalcar", "airtickets", "hotelroom").
 * A reader, human or model, reads through both; the phrase patterns need the word whole and
 * alone.
 */

/** What may stand between two fragments of one word. */
const SEPARATORS = new Set([' ', '.', '-']);
/** A word: a run of letters (the classifier's text is lower-case). */
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

/** What readWordBreaks needs, with the cue words' prefixes and ends found once. */
export interface WordBreakReader extends WordBreakDeps {
  /** Every proper prefix of a cue word: a fragment that is none joins with nothing. */
  prefixes: ReadonlySet<string>;
  /** The first and the last MIN_PART_CHARS letters of each cue word: a word with neither has no cue part. */
  heads: ReadonlySet<string>;
  tails: ReadonlySet<string>;
}

export function wordBreakReader(deps: WordBreakDeps): WordBreakReader {
  const prefixes = new Set<string>();
  const heads = new Set<string>();
  const tails = new Set<string>();
  for (const word of deps.cueWords) {
    for (let i = 1; i < word.length; i++) prefixes.add(word.slice(0, i));
    if (word.length < MIN_PART_CHARS) continue;
    heads.add(word.slice(0, MIN_PART_CHARS));
    tails.add(word.slice(-MIN_PART_CHARS));
  }
  return { ...deps, prefixes, heads, tails };
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
export function readWordBreaks(text: string, reader: WordBreakReader): WordBreakReading {
  const { cueWords, isWord, prefixes } = reader;
  // Words found once, with their places; the text is rebuilt only when something changes.
  const words: Array<{ start: number; end: number }> = [];
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) words.push({ start: m.index, end: m.index + m[0].length });
  const changed: string[] = [];
  const pieces: string[] = [];
  let copied = 0;
  const replace = (start: number, end: number, by: string) => {
    if (changed.length < MAX_LISTED) changed.push(text.slice(start, end));
    pieces.push(text.slice(copied, start), by);
    copied = end;
  };
  for (let i = 0; i < words.length; i++) {
    const { start, end } = words[i]!;
    const next = words[i + 1];
    // Two fragments with one separator between them that together make a cue word ("fli ght").
    if (next && next.start === end + 1 && SEPARATORS.has(text[end]!)) {
      const left = text.slice(start, end);
      if (prefixes.has(left)) {
        const right = text.slice(next.start, next.end);
        if (cueWords.has(left + right) && !(isWord(left) && isWord(right))) {
          replace(start, next.end, left + right);
          i++;
          continue;
        }
      }
    }
    const split = splitRunTogether(text.slice(start, end), reader);
    if (split !== null) replace(start, end, split);
  }
  if (pieces.length === 0) return { text, changed };
  pieces.push(text.slice(copied));
  return { text: pieces.join(''), changed };
}

/** "rental car" for "rentalcar" (see readWordBreaks), or null. */
function splitRunTogether(word: string, { cueWords, isWord, heads, tails }: WordBreakReader): string | null {
  if (word.length < 2 * MIN_PART_CHARS || word.length > MAX_SPLIT_CHARS || cueWords.has(word)) return null;
  // A cue part starts the word with a cue word's first letters or ends it with one's last.
  if (!heads.has(word.slice(0, MIN_PART_CHARS)) && !tails.has(word.slice(-MIN_PART_CHARS))) return null;
  for (let i = MIN_PART_CHARS; i <= word.length - MIN_PART_CHARS; i++) {
    const left = word.slice(0, i);
    const right = word.slice(i);
    const leftCue = cueWords.has(left);
    const rightCue = cueWords.has(right);
    if (!leftCue && !rightCue) continue;
    if (isWord(word)) return null;
    if ((leftCue || isWord(left)) && (rightCue || isWord(right))) return `${left} ${right}`;
  }
  return null;
}
