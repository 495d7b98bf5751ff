/** Regex escapes (\b, \s, \w, \d…): their letters are not words. */
const ESCAPE = /\\[a-zA-Z]/g;
/** A run of lower-case letters, and whether its last letter is optional ("flights?"). */
const LETTERS_RUN = /([a-z]+)(\?)?/g;

/**
 * The words a set of phrase patterns is made of ("flight", "ignore", "instructions"), read from
 * their sources: runs of at least `minChars` lower-case letters outside escapes, with and without
 * an optional last letter ("movies?" gives "movies" and "movie"). A few are fragments of optional
 * endings ("documentar" of "documentar(?:y|ies)"); text read as one matches nothing more.
 */
export function patternWords(patterns: Iterable<RegExp>, minChars: number): Set<string> {
  const words = new Set<string>();
  for (const pattern of patterns) {
    for (const [, run, optional] of pattern.source.replace(ESCAPE, ' ').matchAll(LETTERS_RUN)) {
      if (run!.length >= minChars) words.add(run!);
      if (optional && run!.length - 1 >= minChars) words.add(run!.slice(0, -1));
    }
  }
  return words;
}
