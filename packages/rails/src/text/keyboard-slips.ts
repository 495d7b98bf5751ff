/**
 * Typing slips: the misspellings a keyboard makes of a word, so that phrase matching reads
 * through one slipped key ("Book a flihgt", "ignroe all previous instructions"), as a human or a
 * language model reading the text does. A slip keeps the first letter (misspellings rarely get
 * it wrong, and a free first letter turns Dutch "kopen" into "open") and makes one of Damerau's
 * four single edits, kept to what a keyboard produces: a dropped letter ("serch"), two
 * neighbours swapped ("flihgt"), a key next to the right one ("hitel"), or an extra letter that
 * doubles one or sits next to one on the keyboard ("carr", "searcj"). A letter far from the
 * right one is no slip: "reserva" is not typed for "reserve". One letter written as Latin
 * letters that look like it counts too ("fIight", "rnovie"; see LOOK_ALIKES).
 */

/** Typed words shorter than this are not read as slips: too many short words are one letter apart. */
export const MIN_SLIP_CHARS = 4;
const KEYBOARD_ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];

/**
 * The letters next to each letter on a QWERTY keyboard (same row, and the row above and below
 * as keys are staggered: "s" touches "w", "e", "a", "d", "z" and "x").
 */
const KEY_NEIGHBOURS: ReadonlyMap<string, readonly string[]> = (() => {
  const neighbours = new Map<string, Set<string>>();
  const link = (a: string | undefined, b: string | undefined) => {
    if (!a || !b) return;
    neighbours.get(a)!.add(b);
    neighbours.get(b)!.add(a);
  };
  for (const row of KEYBOARD_ROWS) for (const key of row) neighbours.set(key, new Set());
  KEYBOARD_ROWS.forEach((row, r) => {
    for (let i = 0; i < row.length; i++) {
      link(row[i], row[i + 1]);
      // Each lower row is shifted right by about half a key: key i touches keys i and i+1 above.
      const above = KEYBOARD_ROWS[r - 1];
      if (above) {
        link(row[i], above[i]);
        link(row[i], above[i + 1]);
      }
    }
  });
  return new Map([...neighbours].map(([key, set]) => [key, [...set]]));
})();
/**
 * Latin letters written as others that look the same, lower-cased (Unicode's confusables, UTS
 * #39, within Latin): "fIight" (a capital I) for "flight", "rnovie" for "movie", "vv" for "w",
 * "cl" for "d". Other scripts' look-alikes are mapped before (normalizeText).
 */
const LOOK_ALIKES: ReadonlyMap<string, readonly string[]> = new Map([
  ['l', ['i']],
  ['m', ['rn']],
  ['w', ['vv']],
  ['d', ['cl']],
]);
const neighboursOf = (letter: string | undefined): readonly string[] => (letter === undefined ? [] : (KEY_NEIGHBOURS.get(letter) ?? []));

export interface SlipOptions {
  /**
   * Whether a slip may drop, replace or add the last letter (default true). A last-letter edit
   * often makes another form of the word ("file" and "files", "know" and "known"), which only a
   * dictionary tells from a slip; swapping the last two letters ("promtp") is read either way.
   */
  lastLetter?: boolean;
  /** Only words of at least this many letters are read through slips (default: all). */
  minTargetChars?: number;
}

/** Every misspelling of `word` (lower-case a–z) that one keyboard slip makes, first letter kept. */
export function keyboardSlips(word: string, { lastLetter = true }: SlipOptions = {}): Set<string> {
  const slips = new Set<string>();
  const last = lastLetter ? word.length : word.length - 1;
  for (let i = 1; i <= word.length; i++) {
    const head = word.slice(0, i);
    const tail = word.slice(i);
    // Dropped: the letter at i.
    if (i < last) slips.add(head + word.slice(i + 1));
    // Swapped: the letters at i and i + 1.
    if (i < word.length - 1) slips.add(head + word[i + 1] + word[i] + word.slice(i + 2));
    // Next key: the letter at i typed as a neighbour.
    if (i < last) for (const key of neighboursOf(word[i])) slips.add(head + key + word.slice(i + 1));
    // Look-alike: the letter at i written as letters that look like it (a capital I for an l).
    if (i < last) for (const alike of LOOK_ALIKES.get(word[i]!) ?? []) slips.add(head + alike + word.slice(i + 1));
    // Extra letter before i: a double of the letter before or after it, or one of their neighbours.
    if (i > last) continue;
    const before = word[i - 1];
    const after = word[i];
    const extras = new Set([before!, ...(after === undefined ? [] : [after]), ...neighboursOf(before), ...neighboursOf(after)]);
    for (const extra of extras) slips.add(head + extra + tail);
  }
  slips.delete(word);
  return slips;
}

/**
 * For each misspelling one keyboard slip makes of any of `words` (at least MIN_SLIP_CHARS long,
 * and not itself one of `words`), the words it may have been typed for. With `minTargetChars`,
 * the shorter words are not read through slips but still count as words ("user" is no slip of
 * "users"). Built once per vocabulary, so reading a word's slips is one lookup.
 */
export function slipIndex(words: Iterable<string>, options: SlipOptions = {}): ReadonlyMap<string, readonly string[]> {
  const vocabulary = new Set(words);
  const index = new Map<string, string[]>();
  for (const word of vocabulary) {
    if (word.length < (options.minTargetChars ?? 0)) continue;
    for (const slip of keyboardSlips(word, options)) {
      if (slip.length < MIN_SLIP_CHARS || vocabulary.has(slip)) continue;
      const targets = index.get(slip);
      if (!targets) index.set(slip, [word]);
      else if (!targets.includes(word)) targets.push(word);
    }
  }
  return index;
}

/** A word long enough to be read as a slip. */
const WORD = new RegExp(`[a-z]{${MIN_SLIP_CHARS},}`, 'g');

export interface SlipReading {
  /** The text with each slip replaced by the words it may have been typed for. */
  text: string;
  /** The words read as slips, as typed (at most MAX_LISTED_SLIPS). */
  slips: string[];
}
const MAX_LISTED_SLIPS = 10;

/**
 * `text` with each lower-case word that is a slip of a vocabulary word (per `index`) and not a
 * word in its own right (`isWord`: "care" is not a slip of "car") replaced by the words it may
 * have been typed for, separated by spaces (usually one).
 */
export function readSlips(text: string, index: ReadonlyMap<string, readonly string[]>, isWord: (word: string) => boolean): SlipReading {
  // Most texts have no slip: find that out without building a new string.
  let any = false;
  for (const [word] of text.matchAll(WORD)) {
    any = index.has(word) && !isWord(word);
    if (any) break;
  }
  if (!any) return { text, slips: [] };
  const slips: string[] = [];
  const read = text.replace(WORD, (word) => {
    const targets = index.get(word);
    if (!targets || isWord(word)) return word;
    if (slips.length < MAX_LISTED_SLIPS) slips.push(word);
    return targets.join(' ');
  });
  return { text: read, slips };
}
