/**
 * Word breaks moved to hide a word of a set of phrase patterns (the task classifier's cues, the
 * injection rail's phrases): a cue word broken in pieces ("fli ght", "ho-tel", "fl.ight", "dis
 * regard") or run into the next word ("rentalcar", "airtickets", "ignoreall"). A reader, human
 * or model, reads through both; the phrase patterns need the word whole and alone.
 */

/** `charCodeAt.call(s, i)` rather than `s.charCodeAt(i)`: see injection/intent-scan's charCodeAt (why it stays fast). */
const charCodeAt = String.prototype.charCodeAt;

/** A word: a run of letters (the texts read are lower-case). */
const WORD = /[a-z]+/g;
/** What may stand between two fragments of one word. */
const SEPARATORS = new Set([' ', '.', '-']);
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
  /**
   * Whether a word is an English word as it stands (a lemma, or one inflected: not a compound).
   * Without it (no dictionary), any pieces that make a cue word are joined, and a run-together
   * word is split only into cue words.
   */
  isWord?: (word: string) => boolean;
  /**
   * The most pieces joined into one cue word ("in struc tions"), and the most parts a run-together
   * word is split into ("ignoreallprevious"); default 2. Splits into more than two parts take cue
   * words only.
   */
  maxParts?: number;
  /**
   * The shortest cue word pieces are joined into, and the length a run-together word's longest
   * cue word must reach to be split (default: any). The injection rail asks for five letters:
   * "com pose" and "what ever" are not read, "ignore all" is.
   */
  minCueChars?: number;
}

/**
 * A trie of the cue words, letter by letter (`next` is indexed by the letter, a = 0): `end` marks
 * a whole word, `long` a proper prefix of a cue word of minCueChars letters or more (a piece
 * that may join with the next).
 */
interface TrieNode {
  next: Array<TrieNode | undefined>;
  end: boolean;
  long: boolean;
  /** The cue word that ends here (when `end`): a join needs no new string. */
  word: string;
}
const A = 97;
const Z = 122;
const newNode = (): TrieNode => ({ next: new Array<TrieNode | undefined>(26).fill(undefined), end: false, long: false, word: '' });
const isLetter = (code: number) => code >= A && code <= Z;
/** The char codes of SEPARATORS. */
const isSeparator = (code: number) => code === 32 || code === 46 || code === 45;

/** What readWordBreaks needs, with the cue words' prefixes and ends found once. */
export interface WordBreakReader extends WordBreakDeps {
  /**
   * Every proper prefix of a cue word of minCueChars letters or more: a fragment that is none
   * joins with nothing. This and heads and tails are empty with no dictionary (the trie is used).
   */
  prefixes: ReadonlySet<string>;
  /** The first and the last MIN_PART_CHARS letters of each cue word: a word with neither has no cue part. */
  heads: ReadonlySet<string>;
  tails: ReadonlySet<string>;
  maxParts: number;
  minCueChars: number;
  /** The cue words (of letters a-z), for reading with no dictionary and for splits into cue words only (null when isWord is given and maxParts is 2). */
  trie: TrieNode | null;
}

export function wordBreakReader(deps: WordBreakDeps): WordBreakReader {
  const prefixes = new Set<string>();
  const heads = new Set<string>();
  const tails = new Set<string>();
  const maxParts = Math.max(2, Math.floor(deps.maxParts ?? 2));
  const trie: TrieNode | null = maxParts > 2 || !deps.isWord ? newNode() : null;
  const minCueChars = deps.minCueChars ?? 1;
  for (const word of deps.cueWords) {
    // The general path's sets (with no dictionary the trie does their work: readByTrie).
    if (deps.isWord) {
      // Pieces join only into a cue word of minCueChars letters or more: only their prefixes count.
      if (word.length >= minCueChars) for (let i = 1; i < word.length; i++) prefixes.add(word.slice(0, i));
      if (word.length >= MIN_PART_CHARS) {
        heads.add(word.slice(0, MIN_PART_CHARS));
        tails.add(word.slice(-MIN_PART_CHARS));
      }
    }
    // Cue words are lower-case letters (WORD); anything else has no place in the trie.
    if (!trie || !/^[a-z]+$/.test(word)) continue;
    let node = trie;
    for (let i = 0; i < word.length; i++) {
      if (word.length >= minCueChars && i > 0) node.long = true;
      node = node.next[charCodeAt.call(word, i) - A] ??= newNode();
    }
    node.end = true;
    node.word = word;
  }
  return { ...deps, prefixes, heads, tails, maxParts, minCueChars, trie };
}

/** A text rebuilt from the words that change, in order: the pieces in between are copied once. */
class Rewrite {
  private readonly pieces: string[] = [];
  private readonly changed: string[] = [];
  private copied = 0;

  constructor(private readonly text: string) {}

  /** text[start..end) reads as `by`. */
  replace(start: number, end: number, by: string): void {
    if (this.changed.length < MAX_LISTED) this.changed.push(this.text.slice(start, end));
    this.pieces.push(this.text.slice(this.copied, start), by);
    this.copied = end;
  }

  reading(): WordBreakReading {
    if (this.pieces.length === 0) return { text: this.text, changed: this.changed };
    this.pieces.push(this.text.slice(this.copied));
    return { text: this.pieces.join(''), changed: this.changed };
  }
}

/**
 * `text` with broken cue words joined and run-together ones split:
 * - pieces (two, or up to maxParts) with one space, hyphen or dot between each, that together
 *   make a cue word and are not all words ("fli ght", "ho-tel"; "show times" stays as written,
 *   both are words);
 * - a word that is not an English word as it stands, made of two parts of three letters or more
 *   of which one is a cue word and the other a cue word or an English word ("rentalcar" is
 *   "rental car"; "carpet" is a word and stays whole); with maxParts above two, also of up to
 *   maxParts cue words ("ignoreallprevious").
 * isWord is asked only about pieces that make a cue word and words that have a cue word in them.
 */
export function readWordBreaks(text: string, reader: WordBreakReader): WordBreakReading {
  const { isWord, trie } = reader;
  // wordBreakReader builds a trie whenever there is no dictionary.
  if (!isWord) return readByTrie(text, reader, trie!);
  // Words are read as they come, a few ahead (a join looks at most maxParts pieces ahead): a
  // 2 MB text has 400,000 of them, and holding them all cost more than reading them. The text is
  // rebuilt only when something changes.
  const window: WordWindow = { base: 0, count: 0, starts: [], ends: [], texts: [] };
  WORD.lastIndex = 0;
  let exhausted = false;
  const fill = () => {
    while (!exhausted && window.count < reader.maxParts) {
      const m = WORD.exec(text);
      if (m === null) exhausted = true;
      else {
        window.starts.push(m.index);
        window.ends.push(m.index + m[0].length);
        window.texts.push(m[0]);
        window.count++;
      }
    }
  };
  const drop = (n: number) => {
    window.base += n;
    window.count -= n;
    // Words read are forgotten in batches, so that the arrays stay short.
    if (window.base >= 64) {
      window.starts.splice(0, window.base);
      window.ends.splice(0, window.base);
      window.texts.splice(0, window.base);
      window.base = 0;
    }
  };
  const out = new Rewrite(text);
  for (fill(); window.count > 0; fill()) {
    const start = window.starts[window.base]!;
    const end = window.ends[window.base]!;
    const word = window.texts[window.base]!;
    // Pieces with one separator between each that together make a cue word ("fli ght").
    const joined = reader.prefixes.has(word) ? joinPieces(text, window, word, reader, isWord) : null;
    if (joined !== null) {
      out.replace(start, window.ends[window.base + joined.last]!, joined.word);
      drop(joined.last + 1);
      continue;
    }
    const split = splitRunTogether(word, reader, isWord);
    if (split !== null) out.replace(start, end, split);
    drop(1);
  }
  return out.reading();
}

/**
 * readWordBreaks with no dictionary: the same reading, walking the trie letter by letter, so
 * that no word becomes a string unless it changes (a 2 MB text has 400,000 words).
 */
function readByTrie(text: string, reader: WordBreakReader, trie: TrieNode): WordBreakReading {
  const { maxParts, minCueChars } = reader;
  const n = text.length;
  const out = new Rewrite(text);
  let i = 0;
  while (i < n) {
    if (!isLetter(charCodeAt.call(text, i))) {
      i++;
      continue;
    }
    const start = i;
    let node: TrieNode | undefined = trie;
    while (i < n && isLetter(charCodeAt.call(text, i))) {
      if (node) node = node.next[charCodeAt.call(text, i) - A];
      i++;
    }
    const end = i;
    // Pieces with one separator between each that together make a cue word ("dis regard").
    if (node?.long) {
      let joinedEnd = -1;
      let joinedWord = '';
      let letters = end - start;
      let k = end;
      for (let piecesSeen = 1; piecesSeen < maxParts && node?.long && k + 1 < n && isSeparator(charCodeAt.call(text, k)) && isLetter(charCodeAt.call(text, k + 1)); piecesSeen++) {
        k++;
        while (k < n && isLetter(charCodeAt.call(text, k))) {
          if (node) node = node.next[charCodeAt.call(text, k) - A];
          letters++;
          k++;
        }
        if (node?.end && letters >= minCueChars) {
          joinedEnd = k;
          joinedWord = node.word;
        }
      }
      if (joinedEnd > 0) {
        out.replace(start, joinedEnd, joinedWord);
        i = joinedEnd;
        continue;
      }
    }
    if (end - start >= 2 * MIN_PART_CHARS && end - start <= MAX_SPLIT_CHARS && trie.next[charCodeAt.call(text, start) - A]) {
      const split = splitIntoCueWords(text.slice(start, end), trie, reader);
      if (split !== null) out.replace(start, end, split);
    }
  }
  return out.reading();
}

/** The next few words of a text (runs of a-z), and where they start and end: `count` of them from index `base`. */
interface WordWindow {
  base: number;
  count: number;
  starts: number[];
  ends: number[];
  texts: string[];
}

/**
 * The cue word that the pieces from words[0] on join into, and the index of its last piece
 * (the longest such run, up to maxParts pieces), or null when none do. Pieces that are all words
 * stay as written ("show times").
 */
function joinPieces(text: string, words: WordWindow, firstWord: string, reader: WordBreakReader, isWord: (word: string) => boolean): { word: string; last: number } | null {
  const { cueWords, prefixes, maxParts, minCueChars } = reader;
  const { base, starts, ends, texts } = words;
  let joined = firstWord;
  let found: { word: string; last: number } | null = null;
  // Whether the pieces so far are all words: asked (of WordNet, in the classifier) only once
  // they make a cue word, and of each piece once.
  let wordsUpTo = -1;
  for (let k = 1; k < words.count && k < maxParts; k++) {
    const prevEnd = ends[base + k - 1]!;
    if (starts[base + k] !== prevEnd + 1 || !SEPARATORS.has(text[prevEnd]!)) break;
    joined += texts[base + k]!;
    if (joined.length >= minCueChars && cueWords.has(joined)) {
      while (wordsUpTo < k && isWord(texts[base + wordsUpTo + 1]!)) wordsUpTo++;
      if (wordsUpTo < k) found = { word: joined, last: k };
    }
    if (!prefixes.has(joined)) break;
  }
  return found;
}

/** "rental car" for "rentalcar" (see readWordBreaks), or null. */
function splitRunTogether(word: string, reader: WordBreakReader, isWord: (word: string) => boolean): string | null {
  const { cueWords, heads, tails, trie } = reader;
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
    if ((leftCue || isWord(left)) && (rightCue || isWord(right)) && Math.max(leftCue ? left.length : 0, rightCue ? right.length : 0) >= reader.minCueChars) return `${left} ${right}`;
  }
  // More than two parts: cue words only, and never a word as it stands.
  if (!trie || !heads.has(word.slice(0, MIN_PART_CHARS))) return null;
  const parts = splitIntoCueWords(word, trie, reader);
  return parts !== null && !isWord(word) ? parts : null;
}

/**
 * `word` as up to maxParts cue words of MIN_PART_CHARS letters or more, one of them minCueChars
 * or more ("ignore all previous" for "ignoreallprevious"), fewest parts first, or null (a cue
 * word alone is one part, no split). One walk of the trie from each place a part can start: at
 * most MAX_SPLIT_CHARS times the longest cue word's length steps.
 */
function splitIntoCueWords(word: string, trie: TrieNode, { maxParts, minCueChars }: WordBreakReader): string | null {
  if (trie.next[charCodeAt.call(word, 0) - A] === undefined) return null;
  // parts[i]: the fewest cue words that spell word[0..i), plus one (0: unreached); from[i]: where the last starts.
  const parts = SPLIT_PARTS.fill(0, 0, word.length + 1);
  const from = SPLIT_FROM;
  parts[0] = 1;
  for (let i = 0; i < word.length; i++) {
    if (parts[i] === 0 || parts[i]! > maxParts) continue;
    let node: TrieNode | undefined = trie;
    for (let j = i; j < word.length; j++) {
      node = node.next[charCodeAt.call(word, j) - A];
      if (!node) break;
      if (node.end && j + 1 - i >= MIN_PART_CHARS && (parts[j + 1] === 0 || parts[i]! + 1 < parts[j + 1]!)) {
        parts[j + 1] = parts[i]! + 1;
        from[j + 1] = i;
      }
    }
  }
  const count = parts[word.length]! - 1;
  if (count < 2 || count > maxParts) return null;
  const out: string[] = [];
  let longest = 0;
  for (let end = word.length; end > 0; end = from[end]!) {
    out.unshift(word.slice(from[end]!, end));
    longest = Math.max(longest, end - from[end]!);
  }
  return longest >= minCueChars ? out.join(' ') : null;
}

/** splitIntoCueWords' tables, reused: it runs to completion on one word at a time. */
const SPLIT_PARTS = new Uint8Array(MAX_SPLIT_CHARS + 1);
const SPLIT_FROM = new Int16Array(MAX_SPLIT_CHARS + 1);
