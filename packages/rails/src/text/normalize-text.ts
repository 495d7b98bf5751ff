import { confusablesMap } from 'confusables';

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
const INVISIBLE = /[\p{Cf}\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u3164\uFE00-\uFE0F\uFFA0]|\uDB40[\uDD00-\uDDEF]/u;
const MARK = /\p{M}/u;
const LEET: Readonly<Record<string, string>> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's', '!': 'i', '|': 'l' };
const LETTER = /\p{L}/u;

/**
 * Linear in the input: one pass over its code points, each folded on its own (NFKD, marks
 * dropped, then the confusables map), so the index map stays exact.
 */
export function normalizeText(input: string, options: NormalizeOptions = {}): NormalizedText {
  const { confusables = true, leet = false, lowerCase = true } = options;
  const parts: string[] = [];
  const index: number[] = [];
  let offset = 0;
  for (const char of input) {
    const at = offset;
    offset += char.length;
    if (char.charCodeAt(0) < 0x80) {
      push(lowerCase ? char.toLowerCase() : char, at);
      continue;
    }
    if (INVISIBLE.test(char)) continue;
    let folded = '';
    for (const piece of char.normalize('NFKD')) if (!MARK.test(piece)) folded += piece;
    if (confusables && folded.length > 0) {
      let mapped = '';
      for (const piece of folded) mapped += confusablesMap.get(piece) ?? piece;
      folded = mapped;
    }
    push(lowerCase ? folded.toLowerCase() : folded, at);
  }
  function push(text: string, at: number) {
    for (let i = 0; i < text.length; i += 1) index.push(at);
    parts.push(text);
  }
  let text = parts.join('');
  if (leet) text = unLeet(text);
  return { text, sourceIndex: Uint32Array.from(index) };
}

/** Leet characters are read as letters only next to a letter (so "4 nights" keeps its 4). */
function unLeet(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const letter = LEET[text[i]];
    out += letter !== undefined && (LETTER.test(text[i - 1] ?? '') || LETTER.test(text[i + 1] ?? '')) ? letter : text[i];
  }
  return out;
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
