import { spelledReadings } from '../text/join-spelled-letters';
import { readSlips, slipIndex } from '../text/keyboard-slips';
import { normalizeText, readLeetspeak } from '../text/normalize-text';
import { patternWords } from '../text/pattern-words';
import { readWordBreaks, wordBreakReader, type WordBreakReader } from '../text/word-breaks';
import { PHRASE_PATTERNS, SIGNAL_WEIGHTS } from './injection-patterns';

export interface InjectionResult {
  /** 0..1; compare with the policy's threshold. */
  score: number;
  /** What was seen, e.g. `ignore-instructions`, `hidden-tag-characters`, `base64-instructions`. */
  signals: string[];
}

// Emoji flag subdivisions (🏴 + tag letters + cancel tag) are the one legitimate use of tag characters.
const FLAG_TAG_SEQUENCE = /\uD83C\uDFF4(?:\uDB40[\uDC30-\uDC39\uDC61-\uDC7A]){1,8}\uDB40\uDC7F/g;
const TAG_CHAR = /\uDB40[\uDC00-\uDC7F]/g;
// ZWJ inside emoji sequences (👩‍💻) and ZWNJ in Persian/Indic words are legitimate; between Latin letters they hide words.
const EMOJI_ZWJ = /(\p{Extended_Pictographic}\uFE0F?)\u200D(?=\p{Extended_Pictographic})/gu;
const ZERO_WIDTH = /[\u200B\u2060-\u2064\u180E]|(?<=[A-Za-z])[\u200C\u200D](?=[A-Za-z])|(?<!^)\uFEFF/g;
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/;
const INVISIBLE = /[\u200B-\u200F\u2060-\u2064\u180E\uFEFF\u202A-\u202E\u2066-\u2069]|\uDB40[\uDC00-\uDC7F]/g;
const BASE64_RUN = /[A-Za-z0-9+/_-]{24,8192}={0,2}/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: \x00 is the lower bound of the ASCII range this class excludes
const NON_ASCII = /[^\x00-\x7F]/;
const MAX_BASE64_CANDIDATES = 32;

/** An underscore or a run of them between two letters: `ignore_all_previous_instructions` reads as words. */
const WORD_JOINER = /(?<=[a-z])_+(?=[a-z])/g;

/**
 * The text as a reader sees it (normalizeText: full-width and styled letters, accents, invisible
 * characters, look-alike letters of other scripts), lowercase, words joined by underscores split,
 * blanks collapsed.
 */
function normalize(text: string): string {
  return collapseBlanks(fold(text));
}

/** normalize without collapsing blanks (two spaces still part spelled-out words: see joinSpelledLetters). */
function fold(text: string): string {
  const out = NON_ASCII.test(text) ? normalizeText(text.replace(INVISIBLE, ''), { confusables: true, lowerCase: true }).text : text.toLowerCase();
  return out.includes('_') ? out.replace(WORD_JOINER, ' ') : out;
}

const collapseBlanks = (text: string): string => text.replace(/[ \t\r\f\v]+/g, ' ');

/**
 * Four or more words chained by hyphens or dots ("ignore-all-previous-instructions"). Starts only
 * at a word boundary, and letters and joiners are disjoint, so each chain is read once (linear).
 */
const WORD_CHAIN = /\b[a-z]+(?:[-.][a-z]+){3,}/g;
const CHAIN_JOINER = /[-.]/g;

/**
 * A line is read again as leetspeak only with this many characters read as letters: "mp3", "hi!"
 * or "a@b.c" change one or two, a disguised instruction ("1gn0r3 4ll") several.
 */
const MIN_LEET_CHANGES = 3;
const LEET_INSIDE_WORD = /[a-z][013457][a-z]/;

/** How many characters differ between a line and its leet reading (same length), counted up to MIN_LEET_CHANGES. */
function leetChanges(line: string, read: string): number {
  let n = 0;
  for (let i = 0; i < line.length && n < MIN_LEET_CHANGES; i++) if (line.charCodeAt(i) !== read.charCodeAt(i)) n++;
  return n;
}

/**
 * Words of the phrase patterns read through one slipped key. This package has no dictionary to
 * tell a slip from a word of its own, so only slips that seldom are words: of words of five
 * letters or more ("ignore", "previous", "instructions", "system"), not at the last letter
 * ("know" is not "known"), and the patterns' shorter words still count as words ("user" is not
 * "users"). Built on first use.
 */
const MIN_SLIPPED_WORD_CHARS = 5;
const MIN_PATTERN_WORD_CHARS = 3;
let phraseSlips: ReadonlyMap<string, readonly string[]> | undefined;
const notAWord = () => false;

/** The lines of `normalized` that change when slips of the phrase words are read as the words ("ignroe all previous instrcutions"). */
function slipReadings(normalized: string): string {
  phraseSlips ??= slipIndex(phraseWords(), {
    minTargetChars: MIN_SLIPPED_WORD_CHARS,
    lastLetter: false,
  });
  const { text, slips } = readSlips(normalized, phraseSlips, notAWord);
  return slips.length === 0 ? '' : changedLines(normalized, text);
}

let words: ReadonlySet<string> | undefined;
const phraseWords = () => (words ??= patternWords(PHRASE_PATTERNS.map((p) => p.regex), MIN_PATTERN_WORD_CHARS));

/**
 * Phrase words hidden by moved word breaks: up to four pieces joined when together they make a
 * phrase word of five letters or more ("dis regard", "prev ious", "in struc tions"), and a word
 * run together from up to four phrase words, one of five letters or more, split ("ignoreall",
 * "previousinstructions"; not "whatever" or "compose"). With no dictionary here, any pieces that
 * make a phrase word are joined ("for get" too: a phrase still has to match around it), and a
 * run-together word is split only into phrase words. Built on first use.
 */
const MAX_BREAK_PARTS = 4;
let breaks: WordBreakReader | undefined;
/** The reader of moved word breaks the detector uses (exported for bench/detector-cost.ts). */
export const phraseWordBreaks = (): WordBreakReader =>
  (breaks ??= wordBreakReader({ cueWords: phraseWords(), maxParts: MAX_BREAK_PARTS, minCueChars: MIN_SLIPPED_WORD_CHARS }));

/** The lines of `normalized` that change when moved word breaks of the phrase words are read (see above). */
function wordBreakReadings(normalized: string): string {
  const { text, changed } = readWordBreaks(normalized, phraseWordBreaks());
  return changed.length === 0 ? '' : changedLines(normalized, text);
}

/** '\n' and each line of `read` that differs from its line in `normalized` (same line count). */
function changedLines(normalized: string, read: string): string {
  const lines = normalized.split('\n');
  return read
    .split('\n')
    .filter((line, i) => line !== lines[i])
    .map((line) => '\n' + line)
    .join('');
}

/**
 * What the normalized text also says, to be matched too: its lines with leetspeak read as letters
 * ("1gn0r3 4ll pr3v10us"; only the lines that reading changes in three places or more), its
 * word chains with the joiners read as spaces, its lines with moved word breaks read (see
 * wordBreakReadings), and all of these with slipped keys read (see slipReadings). Empty when
 * there is nothing else to read.
 */
function otherReadings(normalized: string): string {
  let extra = '';
  // Cheap test first: a disguised word has a leet digit between two letters ("1gn0r3", "pr3v10us").
  const leet = LEET_INSIDE_WORD.test(normalized) ? readLeetspeak(normalized) : normalized;
  if (leet !== normalized) {
    // readLeetspeak keeps every character's place, so the lines line up.
    const lines = normalized.split('\n');
    const read = leet.split('\n');
    for (let i = 0; i < read.length; i++) if (read[i] !== lines[i] && leetChanges(lines[i]!, read[i]!) >= MIN_LEET_CHANGES) extra += '\n' + read[i];
  }
  for (const chain of normalized.match(WORD_CHAIN) ?? []) extra += '\n' + chain.replace(CHAIN_JOINER, ' ');
  extra += wordBreakReadings(normalized);
  return extra + slipReadings(normalized + extra);
}

function phraseSignals(normalized: string, into: Set<string>): void {
  const passed = new Map<RegExp, boolean>();
  for (const p of PHRASE_PATTERNS) {
    if (into.has(p.signal)) continue;
    if (p.when) {
      let ok = passed.get(p.when);
      if (ok === undefined) {
        ok = p.when.test(normalized);
        passed.set(p.when, ok);
      }
      if (!ok) continue;
    }
    if (p.regex.test(normalized)) into.add(p.signal);
  }
}

/** The ASCII text spelled by tag characters (U+E0020..U+E007E map to ' '..'~'), outside emoji flags. */
function hiddenTagText(text: string): string | null {
  const outsideFlags = text.replace(FLAG_TAG_SEQUENCE, '');
  let decoded = '';
  let found = false;
  TAG_CHAR.lastIndex = 0;
  for (let m = TAG_CHAR.exec(outsideFlags); m !== null; m = TAG_CHAR.exec(outsideFlags)) {
    found = true;
    const code = m[0].charCodeAt(1) - 0xdc00;
    if (code >= 0x20 && code <= 0x7e) decoded += String.fromCharCode(code);
  }
  return found ? decoded : null;
}

function countZeroWidth(text: string): number {
  const withoutEmoji = text.replace(EMOJI_ZWJ, '$1');
  ZERO_WIDTH.lastIndex = 0;
  let n = 0;
  while (ZERO_WIDTH.exec(withoutEmoji) !== null) n++;
  return n;
}

/** Readable text hidden in base64 runs (binary payloads such as images decode to non-text and are skipped). */
function decodedBase64Texts(text: string): string[] {
  const out: string[] = [];
  BASE64_RUN.lastIndex = 0;
  let seen = 0;
  for (let m = BASE64_RUN.exec(text); m !== null && seen < MAX_BASE64_CANDIDATES; m = BASE64_RUN.exec(text)) {
    seen++;
    const run = m[0];
    // Mixed case or digits: plain long words (all lowercase letters) are not worth decoding.
    if (!/[A-Z]/.test(run) || !/[a-z0-9]/.test(run)) continue;
    const decoded = Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    let printable = 0;
    for (let i = 0; i < decoded.length; i++) {
      const c = decoded.charCodeAt(i);
      if ((c >= 32 && c < 127) || c === 10 || c === 13 || c === 9) printable++;
    }
    if (decoded.length >= 12 && printable / decoded.length >= 0.9) out.push(decoded);
  }
  return out;
}

/** Tokens of at most this many characters, repeated this many times in a row (or in a short cycle), are a flood. */
const FLOOD_TOKEN_MAX_CHARS = 4;
const FLOOD_MIN_RUN = 40;
const FLOOD_MAX_PERIOD = 4;
/** Only the first tokens are looked at: a flood long enough to matter starts early. */
const FLOOD_MAX_TOKENS = 20_000;

/**
 * A run of one short token repeated over and over ("ö ö ö …", ") ] } ) ] } …"): floods like this
 * push a model off its instructions (the "glitch token" attacks of Tensor Trust). Blank-separated
 * tokens; a cycle of up to four tokens counts as one repeat. Linear: one pass per period.
 */
function hasTokenFlood(text: string): boolean {
  const tokens: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length && tokens.length < FLOOD_MAX_TOKENS; i++) {
    const blank = i === text.length || text.charCodeAt(i) <= 32;
    if (!blank && start < 0) start = i;
    else if (blank && start >= 0) {
      tokens.push(text.slice(start, i));
      start = -1;
    }
  }
  if (tokens.length < FLOOD_MIN_RUN) return false;
  for (let period = 1; period <= FLOOD_MAX_PERIOD; period++) {
    let run = 0;
    for (let i = period; i < tokens.length; i++) {
      const t = tokens[i]!;
      if (t.length <= FLOOD_TOKEN_MAX_CHARS && t === tokens[i - period]) {
        if (++run >= FLOOD_MIN_RUN) return true;
      } else run = 0;
    }
  }
  return false;
}

function combine(signals: Set<string>): number {
  let keep = 1;
  for (const s of signals) keep *= 1 - (SIGNAL_WEIGHTS[s] ?? 0);
  return Math.round((1 - keep) * 1000) / 1000;
}

/**
 * Heuristic prompt-injection score: instruction-override and role-override phrasing, prompt
 * delimiters, requests for the system prompt, hidden Unicode tag characters, zero-width and bidi
 * characters, and the same phrasing hidden in base64 or spelled out letter by letter.
 * Deterministic; no LLM.
 */
export interface InjectionOptions {
  /**
   * The texts a token flood is looked for in, when `text` joins several (a tool call's arguments
   * read together): forty short items of a list are a list, not a flood, while one text that is a
   * flood still counts. Default: `text` itself.
   */
  floodIn?: readonly string[];
}

export function detectInjection(text: string, options: InjectionOptions = {}): InjectionResult {
  const signals = new Set<string>();
  if (!text) return { score: 0, signals: [] };
  const folded = fold(text);
  let analysed = collapseBlanks(folded);
  // Words spelled out letter by letter ("i g n o r e  a l l  p r e v i o u s") read once more,
  // joined. Read in the folded text: mostly ASCII, which joinSpelledLetters tests cheaply.
  const joined = spelledReadings(folded);
  if (joined !== folded) analysed += '\n' + collapseBlanks(joined);
  if (NON_ASCII.test(text)) {
    const hidden = hiddenTagText(text);
    if (hidden !== null) {
      signals.add('hidden-tag-characters');
      analysed += '\n' + normalize(hidden);
    }
    if (countZeroWidth(text) > 0) signals.add('zero-width-characters');
    if (BIDI_CONTROL.test(text)) signals.add('bidi-control');
  }
  analysed += otherReadings(analysed);
  phraseSignals(analysed, signals);
  if ((options.floodIn ?? [text]).some(hasTokenFlood)) signals.add('token-flood');
  for (const decoded of decodedBase64Texts(text)) {
    const inner = new Set<string>();
    phraseSignals(normalize(decoded), inner);
    if (inner.size > 0) {
      signals.add('base64-instructions');
      break;
    }
  }
  const ordered = [...signals].sort((a, b) => (SIGNAL_WEIGHTS[b] ?? 0) - (SIGNAL_WEIGHTS[a] ?? 0) || a.localeCompare(b));
  return { score: combine(signals), signals: ordered };
}
