import { CipherCount, cipherIndexOf, type CipherName } from '../text/decodings';
import { CUE, LANGUAGES, type CueName } from './intent-lexicon';

/**
 * String.prototype.charCodeAt, called as `charCodeAt.call(s, i)`: once any code in the process
 * subclasses String (ioredis does, `class VerbatimString extends String`, so every worker), V8
 * no longer inlines `s.charCodeAt(i)` on strings and a loop over a text's characters runs several
 * times slower; a call through the function saved here still is.
 */
const charCodeAt = String.prototype.charCodeAt;

/**
 * One pass over a folded text that finds what the injection rail needs to know before it reads
 * anything twice: the cue words of injection intents in every language of the lexicon (with
 * where they are, in word units, and where clauses break), the English phrase patterns' anchor
 * words (a pattern runs only when one of its anchors is there), and cheap hints for the other
 * readings (a word that may be a keyboard slip of a phrase word, pieces or run-together words
 * of phrase words, chained words, runs of the base64 or hex alphabets, enciphered common words,
 * a run of short tokens that may be a flood). All of it walks one trie, built once per process
 * (see warmLexicon), so ordinary text pays one walk of a few letters per word.
 */

/** Scripts written without spaces between words, or with words glued to particles: matched anywhere. */
function isDense(c: number): boolean {
  return (
    c >= 0x600 &&
    (c >= 0x3040 && c <= 0x30ff) ||
    (c >= 0x3400 && c <= 0x9fff) ||
    (c >= 0xac00 && c <= 0xd7af) ||
    (c >= 0x1100 && c <= 0x11ff) ||
    (c >= 0x3130 && c <= 0x318f) ||
    (c >= 0x0600 && c <= 0x06ff) ||
    (c >= 0x0750 && c <= 0x077f) ||
    (c >= 0x0e00 && c <= 0x0e7f) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0xfb50 && c <= 0xfdff) ||
    (c >= 0xfe70 && c <= 0xfeff) ||
    (c >= 0xff66 && c <= 0xff9f)
  );
}

/**
 * How much of a word unit one character of a dense script is: a Chinese character half a word,
 * a kana a third (words of kana are longer), a Hangul syllable half (its jamo after the first
 * nothing: folding splits syllables into jamo). Arabic-script words are spaced and count as
 * words (their entries are matched anywhere for the particles glued on).
 */
function unitOf(c: number): number {
  if (c >= 0x3040 && c <= 0x30ff) return 0.35;
  if ((c >= 0x3400 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0x0e00 && c <= 0x0e7f)) return 0.5;
  if ((c >= 0x1100 && c <= 0x1112) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0x3131 && c <= 0x314e)) return 0.5;
  return 0;
}
/** Scripts written without spaces between words (Chinese, Japanese, Thai). */
export const isUnspaced = (c: number): boolean => (c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0x0e00 && c <= 0x0e7f);
const isArabicScript = (c: number) => (c >= 0x0600 && c <= 0x06ff) || (c >= 0x0750 && c <= 0x077f) || (c >= 0xfb50 && c <= 0xfdff) || (c >= 0xfe70 && c <= 0xfeff);

/** Devanagari and Bengali (spaced, with postpositions written onto the word). */
const isIndic = (c: number) => c >= 0x900 && c <= 0x9ff;

/** A letter of any script (lower-case ASCII after folding, or any code unit that is no sign, space or surrogate). */
function isLetter(c: number): boolean {
  if (c < 0xc0) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 0xaa || c === 0xb5 || c === 0xba;
  if (c === 0xd7 || c === 0xf7) return false;
  if (c >= 0x2000 && c <= 0x2bff) return false;
  if (c >= 0x3000 && c <= 0x303f) return false;
  if (c >= 0xd800 && c <= 0xf8ff) return false;
  if (c >= 0xfe30 && c <= 0xfe4f) return false;
  if (c >= 0xff00 && c <= 0xff65) return false;
  if (c === 0x60c || c === 0x61b || c === 0x61f || c === 0x964 || c === 0x965 || c === 0x6d4) return false;
  return c < 0xfff0;
}

const isSeparator = (c: number) => c === 32 || c === 46 || c === 45;
const isAsciiLetter = (c: number) => c >= 97 && c <= 122;

/** A word boundary between units j - 1 and j: not a letter after, or a change between ASCII and other scripts. */
function boundaryAt(s: string, j: number): boolean {
  if (j >= s.length) return true;
  const c = charCodeAt.call(s, j);
  if (!isLetter(c)) return true;
  return charCodeAt.call(s, j - 1) < 0x80 !== c < 0x80;
}

/**
 * The trie, flat: node ids index arrays of small integers (one load per letter walked). Plain
 * arrays, not typed ones: once any code in the process detaches an ArrayBuffer (ioredis does, so
 * every executor), V8 checks every typed-array load, and the scan ran half as fast again. Node 0 is the root of
 * the entries matched from word starts, node 1 that of the dense scripts' entries, matched from
 * any place; a child id of 0 means none (no node has the root as a child).
 */
interface FlatTrie {
  /** Children for a-z (slots 0-25) and a space (slot 26): kids[node * 27 + slot]. */
  kids: number[];
  /** Children for any other code unit: key node * 65536 + code. */
  other: Map<number, number>;
  cuesExact: number[];
  cuesStem: number[];
  anchor: number[];
  flags: number[];
  /**
   * Per anchor id, the number of the last scan that saw it: a scan needs no array of its own (one
   * allocated per text made the young generation churn).
   */
  anchorSeenBy: number[];
}
const STOP_EXACT = 1;
const STOP_STEM = 2;
const PHRASE_END = 4;
const PHRASE_LONG = 8;
/** Something to record ends here (a cue, a stop, an anchor). */
const MARKED = 16;
const ROOT = 0;
const DENSE_ROOT = 1;
const SLOTS = 27;

/** Builds a FlatTrie node by node, growing its arrays as it goes (no object per node). */
class TrieBuilder {
  size = 2;
  kids = new Int32Array(4096 * SLOTS);
  readonly other = new Map<number, number>();
  cuesExact = new Int32Array(4096);
  cuesStem = new Int32Array(4096);
  anchor = new Int32Array(4096).fill(-1);
  flags = new Uint8Array(4096);

  /** The node reached from `top` by `word`, made as needed. */
  insert(top: number, word: string): number {
    let node = top;
    for (let i = 0; i < word.length; i++) node = this.childOf(node, charCodeAt.call(word, i));
    return node;
  }

  childOf(node: number, c: number): number {
    const slot = c >= 97 && c <= 122 ? c - 97 : c === 32 ? 26 : -1;
    const found = slot >= 0 ? this.kids[node * SLOTS + slot]! : (this.other.get(node * 65536 + c) ?? 0);
    if (found !== 0) return found;
    const made = this.size++;
    if (made >= this.flags.length) this.grow();
    if (slot >= 0) this.kids[node * SLOTS + slot] = made;
    else this.other.set(node * 65536 + c, made);
    return made;
  }

  private grow(): void {
    const n = this.flags.length * 2;
    const kids = new Int32Array(n * SLOTS);
    kids.set(this.kids);
    this.kids = kids;
    const grow32 = (a: Int32Array, fill = 0) => {
      const b = new Int32Array(n).fill(fill);
      b.set(a);
      return b;
    };
    this.cuesExact = grow32(this.cuesExact);
    this.cuesStem = grow32(this.cuesStem);
    this.anchor = grow32(this.anchor, -1);
    const flags = new Uint8Array(n);
    flags.set(this.flags);
    this.flags = flags;
  }

  build(anchors: number): FlatTrie {
    const n = this.size;
    const flags = Array.from(this.flags.subarray(0, n));
    for (let k = 0; k < n; k++) if (this.cuesExact[k] !== 0 || this.cuesStem[k] !== 0 || this.anchor[k]! >= 0 || (flags[k]! & (STOP_EXACT | STOP_STEM)) !== 0) flags[k]! |= MARKED;
    const plain = (a: Int32Array) => Array.from(a);
    return {
      kids: plain(this.kids.subarray(0, n * SLOTS)),
      other: this.other,
      cuesExact: plain(this.cuesExact.subarray(0, n)),
      cuesStem: plain(this.cuesStem.subarray(0, n)),
      anchor: plain(this.anchor.subarray(0, n)),
      flags,
      anchorSeenBy: new Array<number>(anchors).fill(0),
    };
  }
}

/** The child of `node` for code unit `c`, or 0 (no node has the root as a child). */
function step(trie: FlatTrie, node: number, c: number): number {
  if (c >= 97 && c <= 122) return trie.kids[node * SLOTS + c - 97]!;
  if (c === 32) return trie.kids[node * SLOTS + 26]!;
  return trie.other.get(node * 65536 + c) ?? 0;
}

export interface Lexicon {
  trie: FlatTrie;
  /** Anchor words by id. */
  anchors: readonly string[];
  /** Hashes of the keyboard slips of phrase words (an open-addressing set; 0 is empty). */
  slipHashes: number[];
  /** Hashes of the enciphered common words, and the words (see text/decodings' CipherCount). */
  cipherHashes: number[];
  ciphers: ReadonlyMap<string, readonly CipherName[]>;
}

export interface LexiconSource {
  /** How the detector folds text (entries are folded the same way). */
  fold: (text: string) => string;
  /** Words of the English phrase patterns that gate them. */
  anchorWords: readonly string[];
  /** The phrase words the word-break reading joins and splits. */
  phraseWords: ReadonlySet<string>;
  /** Misspellings the slip reading reads. */
  slips: Iterable<string>;
}

/** FNV-1a over UTF-16 units, never 0. */
function hashStep(h: number, c: number): number {
  return Math.imul(h ^ c, 16777619);
}
const HASH_SEED = 2166136261 | 0;

function hashSet(words: Iterable<string>): number[] {
  const list = [...words];
  let size = 1024;
  while (size < list.length * 4) size *= 2;
  const table = new Array<number>(size).fill(0);
  for (const w of list) {
    let h = HASH_SEED;
    for (let i = 0; i < w.length; i++) h = hashStep(h, charCodeAt.call(w, i));
    const key = hashKey(h);
    let at = key & (size - 1);
    while (table[at] !== 0 && table[at] !== key) at = (at + 1) & (size - 1);
    table[at] = key;
  }
  return table;
}

/** A hash as a key of the tables: 30 bits and never 0, so that it stays a small integer. */
const hashKey = (h: number) => (h & 0x3fffffff) | 1;

function hasHash(table: readonly number[], h: number): boolean {
  const mask = table.length - 1;
  const key = hashKey(h);
  for (let at = key & mask; ; at = (at + 1) & mask) {
    const v = table[at]!;
    if (v === key) return true;
    if (v === 0) return false;
  }
}

/** Builds the trie of every cue, anchor, phrase word and cipher word. */
export function buildLexicon(source: LexiconSource): Lexicon {
  const trie = new TrieBuilder();
  const cipherSource = new Set<string>();
  const reversedEntries = new Set<string>();
  for (const language of LANGUAGES) {
    const entries: Array<[string, number, boolean]> = [];
    for (const [name, list] of Object.entries(language.cues) as Array<[CueName, string]>) for (const entry of list.split('|')) entries.push([entry, CUE[name], false]);
    for (const entry of (language.stops ?? '').split('|')) if (entry) entries.push([entry, 0, true]);
    for (const [raw, cue, stop] of entries) {
      const written = raw.endsWith('*') ? raw.slice(0, -1) : raw;
      if (!stop && !raw.includes(' ')) {
        const whole = source.fold(written);
        // Cue words of a-z are counted enciphered (rot13, Atbash, reversed); others, written
        // backwards (by character, then folded: a Hangul syllable folds into letters), are matched anywhere.
        if (/^[a-z]+$/.test(whole)) cipherSource.add(whole);
        else if (whole.length >= 2) reversedEntries.add(source.fold([...written].reverse().join('')));
      }
      // Words of Indic scripts take their postpositions glued on ("ব্যবহারকারীকে"): read as stems.
      const stem = raw.endsWith('*') || isIndic(charCodeAt.call(written, 0));
      const anywhere = isDense(charCodeAt.call(written, 0));
      // A dotless ı folds apart from the i that upper case gives ("KULLANICI"): both are entered.
      const spellings = new Set([source.fold(written), source.fold(written.replace(/ı/g, 'i'))]);
      for (const word of spellings) {
        if (!word) continue;
        const node = trie.insert(anywhere ? DENSE_ROOT : ROOT, word);
        if (stop) trie.flags[node]! |= stem || anywhere ? STOP_STEM : STOP_EXACT;
        else if (stem || anywhere) trie.cuesStem[node]! |= cue;
        else trie.cuesExact[node]! |= cue;
      }
    }
  }
  source.anchorWords.forEach((word, id) => {
    trie.anchor[trie.insert(ROOT, word)] = id;
  });
  for (const word of source.phraseWords) {
    if (!/^[a-z]+$/.test(word)) continue;
    let node = ROOT;
    for (let i = 0; i < word.length; i++) {
      if (word.length >= MIN_JOINED_CHARS && i > 0) trie.flags[node]! |= PHRASE_LONG;
      node = trie.childOf(node, charCodeAt.call(word, i));
    }
    trie.flags[node]! |= PHRASE_END;
  }
  for (const word of reversedEntries) trie.cuesStem[trie.insert(DENSE_ROOT, word)]! |= CUE.REVERSED;
  const ciphers = cipherIndexOf(cipherSource);
  return { trie: trie.build(source.anchorWords.length), anchors: source.anchorWords, slipHashes: hashSet(source.slips), cipherHashes: hashSet(ciphers.keys()), ciphers };
}

/** What may stand between the letters of a spelled-out word (see text/join-spelled-letters). */
const SPELLING_SEPARATORS = ' .*_\u00b7\u2022|/+~-';
/** The longest enciphered common word (see text/decodings). */
const MAX_CIPHER_WORD = 12;
/** Phrase words the word-break reading joins pieces into have five letters or more (see detect-injection). */
const MIN_JOINED_CHARS = 5;
/** Pieces joined into one phrase word, at most. */
const MAX_JOINED_PIECES = 4;
/** A run of the base64 alphabet this long, or this many hex bytes apart, is worth decoding. */
const MIN_RUN_CHARS = 16;
const MIN_HEX_TOKENS = 8;
/** A flood is this many short tokens in a row (see detect-injection's token flood). */
const FLOOD_RUN = 40;
const FLOOD_TOKEN_MAX_CHARS = 4;

/** What a scan found. */
export interface Scan {
  /** Where each cue was (in word units: a word of a spaced script is one, a character of a dense script a half), and its classes. */
  hitUnits: number[];
  hitCues: number[];
  /** Every class seen. */
  cues: number;
  /** Units at which a clause ends (a full stop, a newline…) and at which a comma stands. */
  breaks: number[];
  commas: number[];
  /** Anchor ids seen, each once, in the order first seen. */
  anchorsSeen: number[];
  /** This scan's number (see Lexicon.anchorSeenBy). */
  id: number;
  /** Hints for the other readings. */
  slip: boolean;
  wordBreak: boolean;
  chain: boolean;
  runs: boolean;
  floodRun: boolean;
  /** A leet digit between two letters ("1gn0r3": see detect-injection's leetspeak lines). */
  leet: boolean;
  /** Three or more single letters with one separator between each ("i g n o r e"). */
  spelled: boolean;
  /** A table: a line with two pipes, or two lines in a row with as many commas (or semicolons), two or more. */
  cells: boolean;
  ciphers: CipherCount;
  /**
   * Spans [start, end) of the last text scanned that say the opposite of a cue ("don't forget"):
   * no cue inside them counts, and the caller masks them before its patterns read the text.
   */
  stopSpans: number[];
  /** Where the last stop of the text being scanned ends. */
  stopUntil: number;
  /** Cue words of scripts other than a-z found written backwards. */
  reversedHits: number;
  /** How often each letter a-z occurs (a Caesar shift shows in where the vowels went). */
  letters: number[];
  /** The unit count so far (a scan of several texts continues it). */
  unit: number;
}

let scans = 0;

/** Whether `scan` saw the anchor word `id`. */
export function sawAnchor(lexicon: Lexicon, scan: Scan, id: number): boolean {
  return lexicon.trie.anchorSeenBy[id] === scan.id;
}

export function newScan(_lexicon: Lexicon): Scan {
  return {
    hitUnits: [],
    hitCues: [],
    cues: 0,
    breaks: [],
    commas: [],
    anchorsSeen: [],
    id: ++scans,
    slip: false,
    wordBreak: false,
    chain: false,
    runs: false,
    floodRun: false,
    leet: false,
    spelled: false,
    cells: false,
    ciphers: new CipherCount(),
    stopSpans: [],
    stopUntil: 0,
    reversedHits: 0,
    letters: new Array<number>(26).fill(0),
    unit: 0,
  };
}

const isHexDigit = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102);

/**
 * Reads `s` (folded: lower case, blanks collapsed) into `scan`. Linear: one pass, words of a-z
 * read in a tight inner loop, plus one trie walk from each word start (and from each character of
 * a dense script), each walk bounded by the longest entry.
 */
export function scanText(s: string, lexicon: Lexicon, scan: Scan): void {
  const n = s.length;
  const { trie, slipHashes, cipherHashes } = lexicon;
  let unit = scan.unit + 1;
  let prev = 10;
  scan.stopSpans.length = 0;
  scan.stopUntil = 0;
  // Hyphen- or dot-chained words, base64 runs, hex tokens, blank-separated tokens (floods).
  let chain = 0;
  let b64 = 0;
  let alnumStart = -1;
  let hexTokens = 0;
  let tokenStart = -1;
  let shortRun = 0;
  let runDot = false;
  // Words of other scripts, dense scripts, single letters in a row, table separators on this line and the last.
  let letterStart = -1;
  let denseUntil = 0;
  let singles = 0;
  let lastSingleEnd = -2;
  let pipes = 0;
  let commas = 0;
  let semis = 0;
  let lastCommas = 0;
  let lastSemis = 0;
  let i = 0;
  while (i <= n) {
    let c = i < n ? charCodeAt.call(s, i) : 10;
    if (c >= 97 && c <= 122 && letterStart < 0 && !(prev >= 48 && prev <= 57)) {
      // A word of a-z: walked at its start, then read in a tight loop.
      const start = i;
      if (tokenStart < 0) tokenStart = i;
      if (alnumStart < 0) alnumStart = i;
      chain = (prev === 45 || prev === 46) && i >= 2 && isAsciiLetter(charCodeAt.call(s, i - 2)) ? chain + 1 : 1;
      if (chain >= 4) scan.chain = true;
      // A word of a-z right after letters of another script is part of the same word (one unit).
      if (!(prev >= 0x80 && isLetter(prev))) unit += 1;
      walk(s, i, trie, ROOT, unit, scan, false);
      if (prev >= 0x600 && isDense(prev) && i >= denseUntil) {
        const end = walk(s, i, trie, DENSE_ROOT, unit, scan, true);
        if (end > i) denseUntil = end;
      }
      let hash = HASH_SEED;
      const letters = scan.letters;
      do {
        hash = hashStep(hash, c);
        letters[c - 97]!++;
        i++;
        c = i < n ? charCodeAt.call(s, i) : 10;
      } while (c >= 97 && c <= 122);
      // Letters of a dense script folded to a-z ("ا" reads as "i"): the entry may start here.
      if (c >= 0x600 && isDense(c) && start >= denseUntil) {
        const end = walk(s, start, trie, DENSE_ROOT, unit, scan, true);
        if (end > start) denseUntil = end;
      }
      const len = i - start;
      b64 += len;
      if (b64 >= MIN_RUN_CHARS) scan.runs = true;
      const wordEnds = c < 0x80 || !isLetter(c);
      if (len >= 4 && len <= 40 && !scan.slip && hasHash(slipHashes, hash)) scan.slip = true;
      if (wordEnds && len >= 3 && len <= MAX_CIPHER_WORD && hasHash(cipherHashes, hash)) {
        const word = s.slice(start, i);
        const ciphers = lexicon.ciphers.get(word);
        if (ciphers) scan.ciphers.add(word, ciphers);
      }
      if (wordEnds) {
        if (len === 1) {
          // A single letter one separator after the last one continues a spelled-out run.
          singles = start === lastSingleEnd + 1 && SPELLING_SEPARATORS.includes(s[lastSingleEnd]!) ? singles + 1 : 1;
          if (singles >= 3) scan.spelled = true;
          lastSingleEnd = i;
        } else singles = 0;
      } else letterStart = start;
      prev = charCodeAt.call(s, i - 1);
      continue;
    }
    const letter = c >= 0x80 ? isLetter(c) : (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
    if (letter) {
      // A letter of another script (or of a-z inside such a word).
      // Letters right after a digit ("%20forget", "1gn0r3") start no word (as \b reads them).
      const afterDigit = prev >= 48 && prev <= 57;
      const tokenBegins = letterStart < 0 && !isAsciiLetter(prev) && !afterDigit;
      const startOfWord = !afterDigit && (letterStart < 0 || (prev < 0x80) !== (c < 0x80));
      if (letterStart < 0) letterStart = i;
      if (tokenStart < 0) tokenStart = i;
      if (c < 0x80) {
        // a-z after a digit: part of an alphanumeric run (hex, base64).
        if (alnumStart < 0) alnumStart = i;
        if (++b64 >= MIN_RUN_CHARS) scan.runs = true;
      } else {
        alnumStart = -1;
        hexTokens = 0;
        b64 = 0;
      }
      const denseHere = c >= 0x600 && isDense(c);
      if (denseHere && !isArabicScript(c)) unit += unitOf(c);
      else if (tokenBegins) unit += 1;
      if (startOfWord) walk(s, i, trie, ROOT, unit, scan, false);
      if ((c >= 0x370 || (prev >= 0x600 && isDense(prev)) || (i + 1 < n && isDense(charCodeAt.call(s, i + 1)))) && i >= denseUntil) {
        const end = walk(s, i, trie, DENSE_ROOT, unit, scan, true);
        if (end > i) denseUntil = end;
      }
      prev = c;
      i++;
      continue;
    }
    // Not a letter: a word of another script ends.
    if (letterStart >= 0) {
      if (i - letterStart === 1) {
        singles = letterStart === lastSingleEnd + 1 && SPELLING_SEPARATORS.includes(s[lastSingleEnd]!) ? singles + 1 : 1;
        if (singles >= 3) scan.spelled = true;
        lastSingleEnd = i;
      } else singles = 0;
      letterStart = -1;
    }
    const digit = c >= 48 && c <= 57;
    if (digit) {
      // A word whose first letter folds to a digit ("з" reads as "3"): walked from the digit.
      if (!isLetterOrDigit(prev) && i + 1 < n && isLetter(charCodeAt.call(s, i + 1)) && trie.other.has(ROOT * 65536 + c)) walk(s, i, trie, ROOT, unit + 1, scan, false);
      if (alnumStart < 0) alnumStart = i;
      if (tokenStart < 0) tokenStart = i;
      if (++b64 >= MIN_RUN_CHARS) scan.runs = true;
      // A leet digit (0 1 3 4 5 7) between two letters a-z.
      if (c !== 50 && c !== 54 && c !== 56 && c !== 57 && isAsciiLetter(prev) && i + 1 < n && isAsciiLetter(charCodeAt.call(s, i + 1))) scan.leet = true;
      prev = c;
      i++;
      continue;
    }
    // An alphanumeric token ends: a hex byte ("6e", "0x6e") continues a run of them.
    if (alnumStart >= 0) {
      const len = i - alnumStart;
      const hexByte = (len === 2 && isHexDigit(charCodeAt.call(s, alnumStart)) && isHexDigit(charCodeAt.call(s, alnumStart + 1))) || (len === 4 && charCodeAt.call(s, alnumStart) === 48 && charCodeAt.call(s, alnumStart + 1) === 120);
      if (hexByte) {
        if (++hexTokens >= MIN_HEX_TOKENS) scan.runs = true;
      } else hexTokens = 0;
      alnumStart = -1;
    }
    if (c === 43 || c === 47 || c === 95 || c === 45) {
      if (++b64 >= MIN_RUN_CHARS) scan.runs = true;
    } else b64 = 0;
    if (c <= 32) {
      // A blank ends a token: a run of short ones may be a flood.
      if (tokenStart >= 0) {
        if (i - tokenStart <= FLOOD_TOKEN_MAX_CHARS) {
          if (++shortRun >= FLOOD_RUN) scan.floodRun = true;
        } else shortRun = 0;
        tokenStart = -1;
      }
      runDot = false;
      if (c === 10) {
        scan.breaks.push(unit);
        if (pipes >= 2 || (commas >= 2 && commas === lastCommas) || (semis >= 2 && semis === lastSemis)) scan.cells = true;
        lastCommas = commas;
        lastSemis = semis;
        pipes = 0;
        commas = 0;
        semis = 0;
      }
    } else {
      if (tokenStart < 0) tokenStart = i;
      if (c === 46) {
        const next = i + 1 < n ? charCodeAt.call(s, i + 1) : 10;
        if (next <= 32) scan.breaks.push(unit);
        else runDot = true;
      } else if (c === 44) {
        scan.commas.push(unit);
        commas++;
      } else if (c === 124) pipes++;
      else if (c === 59) {
        scan.breaks.push(unit);
        semis++;
      } else if (c === 33 || c === 63 || c === 0x3002 || c === 0xff01 || c === 0xff1f || c === 0xff1b || c === 0x61f || c === 0x964) scan.breaks.push(unit);
      else if (c === 0xff0c || c === 0x3001 || c === 0x60c) scan.commas.push(unit);
      else if (c === 64) {
        if (i > 0 && i + 1 < n && isLetterOrDigit(prev) && isLetterOrDigit(charCodeAt.call(s, i + 1))) addHit(scan, unit, CUE.DEST);
      } else if (c === 47 && runDot) addHit(scan, unit, CUE.DEST);
    }
    prev = c;
    i++;
  }
  scan.unit = unit;
}

function isLetterOrDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || isLetter(c);
}

function addHit(scan: Scan, unit: number, cues: number): void {
  if ((cues & CUE.REVERSED) !== 0) {
    scan.reversedHits++;
    if (cues === CUE.REVERSED) return;
  }
  scan.hitUnits.push(unit);
  scan.hitCues.push(cues);
  scan.cues |= cues;
}

/**
 * Walks the trie from s[i]: records the cues of the entries that end on the way (the longest
 * stop cancels them all), the anchor and cipher word of a whole word, and the word-break hints.
 * Returns where the longest dense entry ended (for dense walks), or i.
 */
function walk(s: string, i: number, trie: FlatTrie, top: number, unit: number, scan: Scan, anywhere: boolean): number {
  const n = s.length;
  const { kids, flags } = trie;
  let node = top;
  let cues = 0;
  let stopped = false;
  let stopEnd = -1;
  let longest = i;
  // Spaces walked so far, and at the last cue recorded.
  let words = 0;
  let last = 0;
  let j = i;
  // Letters a-z only so far: the path of a phrase word (for the word-break hints).
  let lettersOnly = !anywhere;
  // A phrase word of three letters or more ends inside the word (a run-together word may split there).
  let splits = false;
  while (j < n) {
    const c = charCodeAt.call(s, j);
    let next: number;
    if (c >= 97 && c <= 122) next = kids[node * SLOTS + c - 97]!;
    else {
      next = c === 32 ? kids[node * SLOTS + 26]! : (trie.other.get(node * 65536 + c) ?? 0);
      if (c === 32) words++;
      lettersOnly = false;
    }
    if (next === 0) break;
    node = next;
    j++;
    const f = flags[node]!;
    if (lettersOnly && (f & (PHRASE_END | PHRASE_LONG)) !== 0) {
      const after = j < n ? charCodeAt.call(s, j) : 10;
      if (after >= 97 && after <= 122) {
        if ((f & PHRASE_END) !== 0 && j - i >= 3) splits = true;
      } else if ((f & PHRASE_LONG) !== 0 && !scan.wordBreak && j < n && joinsIntoPhraseWord(s, j, trie, node, j - i)) {
        // Pieces of a phrase word with one separator between ("dis regard", "in struc tions").
        scan.wordBreak = true;
      }
    }
    if ((f & MARKED) === 0) continue;
    const atBoundary = anywhere || boundaryAt(s, j);
    const stem = trie.cuesStem[node]!;
    const exact = trie.cuesExact[node]!;
    if (stem !== 0 || (f & STOP_STEM) !== 0 || (atBoundary && (exact !== 0 || (f & STOP_EXACT) !== 0))) {
      if ((f & STOP_STEM) !== 0 || (atBoundary && (f & STOP_EXACT) !== 0)) {
        stopped = true;
        cues = 0;
        stopEnd = j;
      } else if (!stopped) {
        cues |= stem | (atBoundary ? exact : 0);
        // A phrase ("pay no attention to") stands where its last word does.
        last = words;
      }
      longest = j;
    }
    // A whole word (or phrase) ends at j.
    const anchor = trie.anchor[node]!;
    if (atBoundary && !anywhere && anchor >= 0 && trie.anchorSeenBy[anchor] !== scan.id) {
      trie.anchorSeenBy[anchor] = scan.id;
      scan.anchorsSeen.push(anchor);
    }
  }
  // A word run together from phrase words ("ignoreall"): read as the word-break reading reads it.
  if (splits && !scan.wordBreak) {
    let end = i;
    while (end < n && isAsciiLetter(charCodeAt.call(s, end))) end++;
    if (end - i <= MAX_SPLIT_CHARS && splitsIntoPhraseWords(s, i, end, trie)) scan.wordBreak = true;
  }
  if (stopEnd > 0) {
    scan.stopSpans.push(i, stopEnd);
    scan.stopUntil = Math.max(scan.stopUntil, stopEnd);
  } else if (cues !== 0 && !stopped && i >= scan.stopUntil) addHit(scan, anywhere ? unit : unit + last, cues);
  return anywhere ? longest : i;
}

/** Whether the pieces after s[j] (a separator), walked on from `from`, make a phrase word of five letters or more. */
function joinsIntoPhraseWord(s: string, j: number, trie: FlatTrie, from: number, firstLetters: number): boolean {
  const n = s.length;
  let node = from;
  let k = j;
  let letters = firstLetters;
  for (let pieces = 1; pieces < MAX_JOINED_PIECES && node !== 0 && (trie.flags[node]! & PHRASE_LONG) !== 0 && k + 1 < n && isSeparator(charCodeAt.call(s, k)) && isAsciiLetter(charCodeAt.call(s, k + 1)); pieces++) {
    k++;
    while (k < n && isAsciiLetter(charCodeAt.call(s, k))) {
      if (node !== 0) node = step(trie, node, charCodeAt.call(s, k));
      letters++;
      k++;
    }
    if (node !== 0 && (trie.flags[node]! & PHRASE_END) !== 0 && letters >= MIN_JOINED_CHARS) return true;
  }
  return false;
}

/** Longest word tried for a split, fewest and most parts, shortest part (as readWordBreaks). */
const MAX_SPLIT_CHARS = 30;
const MAX_SPLIT_PARTS = 4;
const MIN_PART_CHARS = 3;
const SPLIT_PARTS = new Array<number>(MAX_SPLIT_CHARS + 1).fill(0);
const SPLIT_LONGEST = new Array<number>(MAX_SPLIT_CHARS + 1).fill(0);

/**
 * Whether s[from, end) is two to four phrase words of three letters or more, one of five or
 * more ("ignoreall", "previousinstructions"; not "output", "out" + "put").
 */
function splitsIntoPhraseWords(s: string, from: number, end: number, trie: FlatTrie): boolean {
  const len = end - from;
  // parts[k]: fewest phrase words spelling s[from, from + k), plus one (0: unreached); longest[k]: the longest part on that way.
  SPLIT_PARTS.fill(0, 0, len + 1);
  SPLIT_LONGEST.fill(0, 0, len + 1);
  SPLIT_PARTS[0] = 1;
  for (let k = 0; k < len; k++) {
    const parts = SPLIT_PARTS[k]!;
    if (parts === 0 || parts > MAX_SPLIT_PARTS) continue;
    let node = ROOT;
    for (let j = k; j < len; j++) {
      node = step(trie, node, charCodeAt.call(s, from + j));
      if (node === 0) break;
      if ((trie.flags[node]! & PHRASE_END) === 0 || j + 1 - k < MIN_PART_CHARS) continue;
      const longest = Math.max(SPLIT_LONGEST[k]!, j + 1 - k);
      const at = j + 1;
      if (SPLIT_PARTS[at] === 0 || parts + 1 < SPLIT_PARTS[at]! || (parts + 1 === SPLIT_PARTS[at] && longest > SPLIT_LONGEST[at]!)) {
        SPLIT_PARTS[at] = parts + 1;
        SPLIT_LONGEST[at] = longest;
      }
    }
  }
  const count = SPLIT_PARTS[len]! - 1;
  return count >= 2 && count <= MAX_SPLIT_PARTS && SPLIT_LONGEST[len]! >= MIN_JOINED_CHARS;
}

