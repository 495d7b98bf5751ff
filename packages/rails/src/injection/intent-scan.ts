import { CipherCount, cipherWords, type CipherName } from '../text/decodings';
import { CUE, LANGUAGES, type CueName } from './intent-lexicon';

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

interface TrieNode {
  /** Children for a-z. */
  a: Array<TrieNode | undefined> | null;
  /** The child for a space (phrases), and for any other code unit (apostrophes, other scripts). */
  sp: TrieNode | undefined;
  m: Map<number, TrieNode> | null;
  /** Cue classes of an entry that ends here and must end at a word boundary, and of one that may go on (a stem). */
  cuesExact: number;
  cuesStem: number;
  stopExact: boolean;
  stopStem: boolean;
  /** Anchor id of the English phrase patterns' word that ends here (whole word), or -1. */
  anchor: number;
  /** A phrase word ends here; a phrase word of five letters or more goes on from here. */
  phraseEnd: boolean;
  phraseLong: boolean;
  /** Non-zero when an entry (cue, stop or anchor) ends here: the walk has something to record. */
  marks: number;
}

const newNode = (): TrieNode => ({
  a: null,
  sp: undefined,
  m: null,
  cuesExact: 0,
  cuesStem: 0,
  stopExact: false,
  stopStem: false,
  anchor: -1,
  phraseEnd: false,
  phraseLong: false,
  marks: 0,
});

function child(node: TrieNode, code: number): TrieNode | undefined {
  if (code >= 97 && code <= 122) return node.a === null ? undefined : node.a[code - 97];
  if (code === 32) return node.sp;
  return node.m === null ? undefined : node.m.get(code);
}

function addChild(node: TrieNode, code: number): TrieNode {
  const existing = child(node, code);
  if (existing) return existing;
  const made = newNode();
  if (code >= 97 && code <= 122) (node.a ??= new Array<TrieNode | undefined>(26).fill(undefined))[code - 97] = made;
  else if (code === 32) node.sp = made;
  else (node.m ??= new Map()).set(code, made);
  return made;
}

/** Scripts written without spaces between words, or with words glued to particles: matched anywhere. */
export function isDense(c: number): boolean {
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
  const c = s.charCodeAt(j);
  if (!isLetter(c)) return true;
  return s.charCodeAt(j - 1) < 0x80 !== c < 0x80;
}

export interface Lexicon {
  root: TrieNode;
  /** Entries of dense scripts, matched from any place. */
  dense: TrieNode;
  /** Anchor words by id. */
  anchors: readonly string[];
  /** Hashes of the keyboard slips of phrase words (an open-addressing set; 0 is empty). */
  slipHashes: Int32Array;
  /** Hashes of the enciphered common words, and the words (see text/decodings' CipherCount). */
  cipherHashes: Int32Array;
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

function hashSet(words: Iterable<string>): Int32Array {
  const list = [...words];
  let size = 1024;
  while (size < list.length * 4) size *= 2;
  const table = new Int32Array(size);
  for (const w of list) {
    let h = HASH_SEED;
    for (let i = 0; i < w.length; i++) h = hashStep(h, w.charCodeAt(i));
    h = h | 1;
    let at = h & (size - 1);
    while (table[at] !== 0 && table[at] !== h) at = (at + 1) & (size - 1);
    table[at] = h;
  }
  return table;
}

function hasHash(table: Int32Array, h: number): boolean {
  const mask = table.length - 1;
  const key = h | 1;
  for (let at = key & mask; ; at = (at + 1) & mask) {
    const v = table[at]!;
    if (v === key) return true;
    if (v === 0) return false;
  }
}

/** Builds the trie of every cue, anchor, phrase word and cipher word. */
export function buildLexicon(source: LexiconSource): Lexicon {
  const root = newNode();
  const dense = newNode();
  const insert = (top: TrieNode, word: string): TrieNode => {
    let node = top;
    for (let i = 0; i < word.length; i++) node = addChild(node, word.charCodeAt(i));
    return node;
  };
  for (const language of LANGUAGES) {
    const entries: Array<[string, number, boolean]> = [];
    for (const [name, list] of Object.entries(language.cues) as Array<[CueName, string]>) for (const entry of list.split('|')) entries.push([entry, CUE[name], false]);
    for (const entry of (language.stops ?? '').split('|')) if (entry) entries.push([entry, 0, true]);
    for (const [raw, cue, stop] of entries) {
      const stem = raw.endsWith('*');
      const written = stem ? raw.slice(0, -1) : raw;
      const word = source.fold(written);
      if (!word) continue;
      const anywhere = isDense(written.charCodeAt(0));
      const node = insert(anywhere ? dense : root, word);
      if (stop) {
        if (stem || anywhere) node.stopStem = true;
        else node.stopExact = true;
      } else if (stem || anywhere) node.cuesStem |= cue;
      else node.cuesExact |= cue;
    }
  }
  source.anchorWords.forEach((word, id) => {
    insert(root, word).anchor = id;
  });
  for (const word of source.phraseWords) {
    if (!/^[a-z]+$/.test(word)) continue;
    let node = root;
    for (let i = 0; i < word.length; i++) {
      if (word.length >= MIN_JOINED_CHARS && i > 0) node.phraseLong = true;
      node = addChild(node, word.charCodeAt(i));
    }
    node.phraseEnd = true;
  }
  const mark = (node: TrieNode) => {
    node.marks = node.cuesExact | node.cuesStem | (node.stopExact || node.stopStem || node.anchor >= 0 ? 1 : 0);
    for (const next of node.a ?? []) if (next) mark(next);
    if (node.sp) mark(node.sp);
    for (const next of node.m?.values() ?? []) mark(next);
  };
  mark(root);
  mark(dense);
  const ciphers = cipherWords();
  return { root, dense, anchors: source.anchorWords, slipHashes: hashSet(source.slips), cipherHashes: hashSet(ciphers.keys()), ciphers };
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
  /** Anchor ids seen. */
  anchors: Uint8Array;
  /** Hints for the other readings. */
  slip: boolean;
  wordBreak: boolean;
  chain: boolean;
  runs: boolean;
  floodRun: boolean;
  /** Three or more single letters with one separator between each ("i g n o r e"). */
  spelled: boolean;
  /** A table: a line with two pipes, or two lines in a row with as many commas (or semicolons), two or more. */
  cells: boolean;
  ciphers: CipherCount;
  /** The unit count so far (a scan of several texts continues it). */
  unit: number;
}

export function newScan(lexicon: Lexicon): Scan {
  return {
    hitUnits: [],
    hitCues: [],
    cues: 0,
    breaks: [],
    commas: [],
    anchors: new Uint8Array(lexicon.anchors.length),
    slip: false,
    wordBreak: false,
    chain: false,
    runs: false,
    floodRun: false,
    spelled: false,
    cells: false,
    ciphers: new CipherCount(),
    unit: 0,
  };
}

const isB64 = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || c === 43 || c === 47 || c === 95 || c === 45;
const isHexDigit = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102);

/**
 * Reads `s` (folded: lower case, blanks collapsed) into `scan`. Linear: one pass, plus one trie
 * walk from each word start (and from each character of a dense script), each walk bounded by
 * the longest entry.
 */
export function scanText(s: string, lexicon: Lexicon, scan: Scan): void {
  const n = s.length;
  const { root, dense, slipHashes, cipherHashes } = lexicon;
  let unit = scan.unit + 1;
  let prev = 10;
  // The current run of ASCII letters: its start and hash.
  let asciiStart = -1;
  let hash = HASH_SEED;
  // Hyphen- or dot-chained words, base64 runs, hex tokens, short tokens.
  let chain = 0;
  let b64 = 0;
  let alnumStart = -1;
  let hexTokens = 0;
  let tokenStart = -1;
  let shortRun = 0;
  let denseUntil = 0;
  let runDot = false;
  // Single letters in a row (spelled-out words) and the separators of table cells on this line and the last.
  let letterStart = -1;
  let singles = 0;
  let lastSingleEnd = -2;
  let pipes = 0;
  let commas = 0;
  let semis = 0;
  let lastCommas = 0;
  let lastSemis = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? s.charCodeAt(i) : 10;
    // The hot path: a letter a-z inside a word of them (most of any text).
    if (c >= 97 && c <= 122 && asciiStart >= 0) {
      hash = hashStep(hash, c);
      if (++b64 >= MIN_RUN_CHARS) scan.runs = true;
      prev = c;
      continue;
    }
    const letter = isLetter(c);
    if (!letter && letterStart >= 0) {
      // A word ends: a single letter one separator after the last one continues a spelled-out run.
      if (i - letterStart === 1) {
        singles = letterStart === lastSingleEnd + 1 && SPELLING_SEPARATORS.includes(s[lastSingleEnd]!) ? singles + 1 : 1;
        if (singles >= 3) scan.spelled = true;
        lastSingleEnd = i;
      } else singles = 0;
      letterStart = -1;
    } else if (letter && letterStart < 0) letterStart = i;
    if (c === 124) pipes++;
    else if (c === 44) commas++;
    else if (c === 59) semis++;
    else if (c === 10) {
      if (pipes >= 2 || (commas >= 2 && commas === lastCommas) || (semis >= 2 && semis === lastSemis)) scan.cells = true;
      lastCommas = commas;
      lastSemis = semis;
      pipes = 0;
      commas = 0;
      semis = 0;
    }
    // End of a run of ASCII letters: a slip, a run-together word.
    if (asciiStart >= 0 && !isAsciiLetter(c)) {
      const len = i - asciiStart;
      if (len >= 4 && len <= 40 && !scan.slip && hasHash(slipHashes, hash)) scan.slip = true;
      if (len >= 3 && len <= MAX_CIPHER_WORD && hasHash(cipherHashes, hash) && (i >= n || !isLetter(c))) {
        const word = s.slice(asciiStart, i);
        const ciphers = lexicon.ciphers.get(word);
        if (ciphers) scan.ciphers.add(word, ciphers);
      }
      asciiStart = -1;
    }
    // End of a blank-separated token (floods) and of an alphanumeric token (hex bytes).
    if (c <= 32) {
      if (tokenStart >= 0) {
        if (i - tokenStart <= FLOOD_TOKEN_MAX_CHARS) {
          if (++shortRun >= FLOOD_RUN) scan.floodRun = true;
        } else shortRun = 0;
        tokenStart = -1;
      }
      runDot = false;
    } else if (tokenStart < 0) tokenStart = i;
    const alnum = (c >= 48 && c <= 57) || isAsciiLetter(c);
    if (alnum) {
      if (alnumStart < 0) alnumStart = i;
    } else if (alnumStart >= 0) {
      const len = i - alnumStart;
      const hexByte = (len === 2 && isHexDigit(s.charCodeAt(alnumStart)) && isHexDigit(s.charCodeAt(alnumStart + 1))) || (len === 4 && s.charCodeAt(alnumStart) === 48 && s.charCodeAt(alnumStart + 1) === 120);
      if (hexByte) {
        if (++hexTokens >= MIN_HEX_TOKENS) scan.runs = true;
      } else if (!(len === 1 && s.charCodeAt(alnumStart) === 48 && c === 120)) hexTokens = 0;
      alnumStart = -1;
    }
    if (isB64(c)) {
      if (++b64 >= MIN_RUN_CHARS) scan.runs = true;
    } else b64 = 0;
    if (!letter) {
      // Clause breaks, commas, links and emails.
      if (c === 10 || c === 33 || c === 63 || c === 59 || c === 0x3002 || c === 0xff01 || c === 0xff1f || c === 0xff1b || c === 0x61f || c === 0x964) scan.breaks.push(unit);
      else if (c === 46) {
        const next = i + 1 < n ? s.charCodeAt(i + 1) : 10;
        if (next <= 32) scan.breaks.push(unit);
        else runDot = true;
      } else if (c === 44 || c === 0xff0c || c === 0x3001 || c === 0x60c) scan.commas.push(unit);
      else if (c === 64) {
        if (i > 0 && i + 1 < n && isLetterOrDigit(prev) && isLetterOrDigit(s.charCodeAt(i + 1))) addHit(scan, unit, CUE.DEST);
      } else if (c === 47 && runDot) addHit(scan, unit, CUE.DEST);
      prev = c;
      continue;
    }
    // A letter.
    const denseHere = isDense(c);
    const startOfWord = !isLetter(prev) || prev < 0x80 !== c < 0x80;
    if (isAsciiLetter(c)) {
      if (asciiStart < 0) {
        asciiStart = i;
        hash = HASH_SEED;
        // A word chained to the last by one hyphen or dot ("ignore-all-previous").
        chain = (prev === 45 || prev === 46) && i >= 2 && isAsciiLetter(s.charCodeAt(i - 2)) ? chain + 1 : 1;
        if (chain >= 4) scan.chain = true;
      }
      hash = hashStep(hash, c);
    }
    if (denseHere) unit += 0.5;
    else if (startOfWord) unit += 1;
    if (startOfWord) walk(s, i, root, unit, scan, false);
    if ((denseHere || (i > 0 && isDense(prev)) || (i + 1 < n && isDense(s.charCodeAt(i + 1)))) && i >= denseUntil) {
      const end = walk(s, i, dense, unit, scan, true);
      if (end > i) denseUntil = end;
    }
    prev = c;
  }
  scan.unit = unit;
}

function isLetterOrDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || isLetter(c);
}

function addHit(scan: Scan, unit: number, cues: number): void {
  scan.hitUnits.push(unit);
  scan.hitCues.push(cues);
  scan.cues |= cues;
}

/**
 * Walks the trie from s[i]: records the cues of the entries that end on the way (the longest
 * stop cancels them all), the anchor and cipher word of a whole word, and the word-break hints.
 * Returns where the longest dense entry ended (for dense walks), or i.
 */
function walk(s: string, i: number, top: TrieNode, unit: number, scan: Scan, anywhere: boolean): number {
  const n = s.length;
  let node: TrieNode = top;
  let cues = 0;
  let stopped = false;
  let longest = i;
  let j = i;
  // Letters a-z only so far: the path of a phrase word (for the word-break hints).
  let lettersOnly = !anywhere;
  // Where a phrase word of three letters or more ends inside the word (a run-together word may split there).
  let splits = false;
  while (j < n) {
    const c = s.charCodeAt(j);
    let next: TrieNode | undefined;
    if (c >= 97 && c <= 122) next = node.a === null ? undefined : node.a[c - 97];
    else {
      next = c === 32 ? node.sp : node.m === null ? undefined : node.m.get(c);
      lettersOnly = false;
    }
    if (next === undefined) break;
    node = next;
    j++;
    if (lettersOnly) {
      const after = j < n ? s.charCodeAt(j) : 10;
      if (after >= 97 && after <= 122) {
        if (node.phraseEnd && j - i >= 3) splits = true;
      } else if (node.phraseLong && !scan.wordBreak && j < n && joinsIntoPhraseWord(s, j, node, j - i)) {
        // Pieces of a phrase word with one separator between ("dis regard", "in struc tions").
        scan.wordBreak = true;
      }
    }
    if (node.marks === 0) continue;
    const atBoundary = anywhere || boundaryAt(s, j);
    if (node.cuesStem !== 0 || node.stopStem || (atBoundary && (node.cuesExact !== 0 || node.stopExact))) {
      if (node.stopStem || (atBoundary && node.stopExact)) {
        stopped = true;
        cues = 0;
      } else if (!stopped) cues |= node.cuesStem | (atBoundary ? node.cuesExact : 0);
      longest = j;
    }
    // A whole word (or phrase) ends at j.
    if (atBoundary && !anywhere && node.anchor >= 0) scan.anchors[node.anchor] = 1;
  }
  // A word run together from phrase words ("ignoreall"): read as the word-break reading reads it.
  if (splits && !scan.wordBreak) {
    let end = i;
    while (end < n && isAsciiLetter(s.charCodeAt(end))) end++;
    if (end - i <= MAX_SPLIT_CHARS && splitsIntoPhraseWords(s, i, end, top)) scan.wordBreak = true;
  }
  if (cues !== 0 && !stopped) addHit(scan, unit, cues);
  return anywhere ? longest : i;
}

/** Whether the pieces after s[j] (a separator), walked on from `node`, make a phrase word of five letters or more. */
function joinsIntoPhraseWord(s: string, j: number, from: TrieNode, firstLetters: number): boolean {
  const n = s.length;
  let node: TrieNode | undefined = from;
  let k = j;
  let letters = firstLetters;
  for (let pieces = 1; pieces < MAX_JOINED_PIECES && node?.phraseLong && k + 1 < n && isSeparator(s.charCodeAt(k)) && isAsciiLetter(s.charCodeAt(k + 1)); pieces++) {
    k++;
    while (k < n && isAsciiLetter(s.charCodeAt(k))) {
      node = node ? child(node, s.charCodeAt(k)) : undefined;
      letters++;
      k++;
    }
    if (node?.phraseEnd && letters >= MIN_JOINED_CHARS) return true;
  }
  return false;
}

/** Longest word tried for a split, fewest and most parts, shortest part (as readWordBreaks). */
const MAX_SPLIT_CHARS = 30;
const MAX_SPLIT_PARTS = 4;
const MIN_PART_CHARS = 3;
const SPLIT_PARTS = new Uint8Array(MAX_SPLIT_CHARS + 1);
const SPLIT_LONGEST = new Uint8Array(MAX_SPLIT_CHARS + 1);

/**
 * Whether s[from, end) is two to four phrase words of three letters or more, one of five or
 * more ("ignoreall", "previousinstructions"; not "output", "out" + "put").
 */
function splitsIntoPhraseWords(s: string, from: number, end: number, top: TrieNode): boolean {
  const len = end - from;
  // parts[k]: fewest phrase words spelling s[from, from + k), plus one (0: unreached); longest[k]: the longest part on that way.
  SPLIT_PARTS.fill(0, 0, len + 1);
  SPLIT_LONGEST.fill(0, 0, len + 1);
  SPLIT_PARTS[0] = 1;
  for (let k = 0; k < len; k++) {
    const parts = SPLIT_PARTS[k]!;
    if (parts === 0 || parts > MAX_SPLIT_PARTS) continue;
    let node: TrieNode | undefined = top;
    for (let j = k; j < len && node; j++) {
      node = child(node, s.charCodeAt(from + j));
      if (!node?.phraseEnd || j + 1 - k < MIN_PART_CHARS) continue;
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
