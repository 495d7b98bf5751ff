/**
 * Harman's S-stemmer (D. Harman, "How effective is suffixing?", JASIS 42(1), 1991): English
 * plurals to their singular by three ordered rules, applied once per word —
 *   "-ies" (not "-eies", "-aies") → "-y";  "-es" (not "-aes", "-ees", "-oes") → "-e";
 *   "-s" (not "-us", "-ss") → "".
 * Conservative by design (it only strips plural endings), so the task classifier can read
 * "musics", "SUVs" or "hostels" as the singular its phrases name, without anyone listing plurals.
 */
export function stemPlural(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && !word.endsWith('eies') && !word.endsWith('aies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('es') && !word.endsWith('aes') && !word.endsWith('ees') && !word.endsWith('oes')) return word.slice(0, -1);
  if (word.endsWith('s') && !word.endsWith('us') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

const WORD = /[a-z]+/g;

/** Every lower-case ASCII word of `text` through stemPlural, except the words in `keep`; the rest unchanged. */
export function stemPlurals(text: string, keep?: ReadonlySet<string>): string {
  return keep ? text.replace(WORD, (word) => (keep.has(word) ? word : stemPlural(word))) : text.replace(WORD, stemPlural);
}
