import { confusablesMap } from 'confusables';

/** `charCodeAt.call(s, i)` rather than `s.charCodeAt(i)`: see injection/intent-scan's charCodeAt (why it stays fast). */
const charCodeAt = String.prototype.charCodeAt;

/**
 * Text as the matchers see it: what an attacker can change in a second without changing what a
 * person reads (full-width or mathematical letters, accents, zero-width and soft-hyphen
 * characters, look-alike letters from other scripts, optionally leetspeak) is folded away before
 * any pattern runs. `sourceIndex` maps each UTF-16 unit of `text` back to the original, so a
 * finding on the normalized text can be reported (or redacted) on the original.
 */
export interface NormalizedText {
  text: string;
  /** sourceIndex[i] = index in the original text of the character that produced text[i]. */
  sourceIndex: Uint32Array;
}

export interface NormalizeOptions {
  /** Map look-alike letters of other scripts to Latin (Cyrillic а → a). Default true. */
  confusables?: boolean;
  /** Read digits and symbols used as letters between letters as those letters (r3nt → rent). Default false. */
  leet?: boolean;
  /** Lower-case the result. Default true. */
  lowerCase?: boolean;
}

// Characters that render as nothing (zero-width spaces and joiners, soft hyphen, BOM, bidi
// controls, variation selectors, tag characters): dropped, so "c\u00ADar" reads as "car".
// biome-ignore lint/suspicious/noMisleadingCharacterClass: each invisible code point (combining ones included) is matched and removed on its own
const INVISIBLE = /[\p{Cf}\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u3164\uFE00-\uFE0F\uFFA0]|\uDB40[\uDD00-\uDDEF]/u;
const MARK = /\p{M}/u;
const LEET: Readonly<Record<string, string>> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's', '!': 'i', '|': 'l' };
const LETTER = /\p{L}/u;

// biome-ignore lint/suspicious/noControlCharactersInRegex: \x00 is the lower bound of the ASCII range this class excludes
const NON_ASCII = /[^\x00-\x7F]/;

/** Whether `text` has a character outside ASCII (then normalizeText has something to fold). */
export function hasNonAscii(text: string): boolean {
  return NON_ASCII.test(text);
}

// Folded form of each non-ASCII character met, per option set: a text repeats its few accented or
// full-width characters. Cleared when full, so a text of a million distinct characters costs
// memory for at most FOLD_CACHE_MAX of them.
const FOLD_CACHE_MAX = 4096;
const foldCaches = [new Map<string, string>(), new Map<string, string>(), new Map<string, string>(), new Map<string, string>()];

function foldChar(cache: Map<string, string>, char: string, confusables: boolean, lowerCase: boolean): string {
  const known = cache.get(char);
  if (known !== undefined) return known;
  let folded = '';
  if (!INVISIBLE.test(char)) {
    for (const piece of char.normalize('NFKD')) if (!MARK.test(piece)) folded += confusables ? (confusablesMap.get(piece) ?? piece) : piece;
    if (lowerCase) folded = folded.toLowerCase();
  }
  if (cache.size >= FOLD_CACHE_MAX) cache.clear();
  cache.set(char, folded);
  return folded;
}

/**
 * Linear in the input: ASCII runs are copied (and lower-cased) whole; every other code point is
 * folded on its own (NFKD, marks dropped, then the confusables map), so the index map stays exact.
 */
export function normalizeText(input: string, options: NormalizeOptions = {}): NormalizedText {
  const { confusables = true, leet = false, lowerCase = true } = options;
  let text: string;
  let sourceIndex: Uint32Array;
  if (!NON_ASCII.test(input)) {
    // The common case: nothing to fold, the map is the identity.
    text = lowerCase ? input.toLowerCase() : input;
    sourceIndex = new Uint32Array(input.length);
    for (let i = 0; i < input.length; i += 1) sourceIndex[i] = i;
  } else {
    ({ text, sourceIndex } = foldCodePoints(input, confusables, lowerCase));
  }
  return { text: leet ? readLeetspeak(text) : text, sourceIndex };
}

function foldCodePoints(input: string, confusables: boolean, lowerCase: boolean): NormalizedText {
  const cache = foldCaches[(confusables ? 2 : 0) + (lowerCase ? 1 : 0)];
  // A fold is at most a few units longer than its character (a ligature, a fraction): the map
  // starts at the input's length plus slack and doubles in the rare case it is outgrown.
  let index = new Uint32Array(input.length + 64);
  let size = 0;
  let text = '';
  let runStart = 0;
  for (let at = 0; at < input.length; ) {
    const code = charCodeAt.call(input, at);
    if (code < 0x80) {
      at += 1;
      continue;
    }
    if (at > runStart) {
      const run = input.slice(runStart, at);
      text += lowerCase ? run.toLowerCase() : run;
      for (let i = runStart; i < at; i += 1) index[size++] = i;
    }
    // A surrogate pair is one code point.
    const width = code >= 0xd800 && code <= 0xdbff && at + 1 < input.length ? 2 : 1;
    const from = at;
    at += width;
    runStart = at;
    const folded = foldChar(cache, input.slice(from, at), confusables, lowerCase);
    if (folded === '') continue;
    text += folded;
    if (size + folded.length + (input.length - at) > index.length) {
      const grown = new Uint32Array(Math.max(index.length * 2, size + folded.length + (input.length - at)));
      grown.set(index.subarray(0, size));
      index = grown;
    }
    for (let i = 0; i < folded.length; i += 1) index[size++] = from;
  }
  if (input.length > runStart) {
    const run = input.slice(runStart);
    text += lowerCase ? run.toLowerCase() : run;
    for (let i = runStart; i < input.length; i += 1) index[size++] = i;
  }
  return { text, sourceIndex: index.slice(0, size) };
}

const LEET_CANDIDATE = /[013457@$!|]/;

/**
 * Leetspeak read as letters (r3nt → rent), in text already normalized: a leet character is read
 * as a letter only next to a letter (so "4 nights" keeps its 4). Same length as the input.
 */
export function readLeetspeak(text: string): string {
  if (!LEET_CANDIDATE.test(text)) return text;
  const isLetter = (i: number): boolean => {
    const code = charCodeAt.call(text, i);
    if (Number.isNaN(code)) return false;
    if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a)) return true;
    return code >= 0x80 && LETTER.test(text[i]);
  };
  const out: string[] = [];
  let copied = 0;
  for (let i = 0; i < text.length; i += 1) {
    const letter = LEET[text[i]];
    if (letter === undefined || !(isLetter(i - 1) || isLetter(i + 1))) continue;
    out.push(text.slice(copied, i), letter);
    copied = i + 1;
  }
  out.push(text.slice(copied));
  return out.join('');
}

/** The span [start, end) of `original` that produced the normalized span [start, end). */
export function sourceSpan(normalized: NormalizedText, original: string, start: number, end: number): { start: number; end: number } {
  if (end <= start || start >= normalized.sourceIndex.length) {
    const at = normalized.sourceIndex[start] ?? original.length;
    return { start: at, end: at };
  }
  const last = normalized.sourceIndex[end - 1];
  // The last unit's original character, whole (a surrogate pair is two units).
  return { start: normalized.sourceIndex[start], end: last + ((original.codePointAt(last) ?? 0) > 0xffff ? 2 : 1) };
}
