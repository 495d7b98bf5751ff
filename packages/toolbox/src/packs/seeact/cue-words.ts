import { slipIndex } from './keyboard-slips';
import { TASK_CATEGORIES, TASK_LEXICON, type CategoryLexicon } from './task-lexicon';

/** Regex escapes (\b, \s, \w, \d…): their letters are not words. */
const ESCAPE = /\\[a-zA-Z]/g;
/** A run of three or more letters, and whether its last letter is optional ("flights?"). */
const LETTERS_RUN = /([a-z]{3,})(\?)?/g;

/** The patterns of a category's cues (not its masks, nor a cue's `unless` context). */
function cuePatterns(lexicon: CategoryLexicon): RegExp[] {
  return lexicon.cues.flatMap((cue) => (cue instanceof RegExp ? [cue] : 'first' in cue ? [cue.first, cue.then] : [cue.pattern]));
}

/**
 * The words the task classifier's cue phrases are made of ("flight", "hotel", "cart", "toyota"),
 * read from the patterns' sources: runs of three or more letters outside escapes, with and
 * without an optional last letter ("movies?" gives "movies" and "movie"). A few are fragments of
 * optional endings ("documentar" of "documentar(?:y|ies)"); a slip read as one matches nothing.
 */
export function cueWords(): Set<string> {
  const words = new Set<string>();
  for (const category of TASK_CATEGORIES) {
    for (const pattern of cuePatterns(TASK_LEXICON[category])) {
      for (const [, run, optional] of pattern.source.replace(ESCAPE, ' ').matchAll(LETTERS_RUN)) {
        words.add(run!);
        if (optional) words.add(run!.slice(0, -1));
      }
    }
  }
  return words;
}

let slips: ReadonlyMap<string, readonly string[]> | undefined;

/**
 * The keyboard slips of the cue words (see keyboard-slips), built on first use (about 40,000
 * misspellings, a few MB).
 */
export function cueSlips(): ReadonlyMap<string, readonly string[]> {
  slips ??= slipIndex(cueWords());
  return slips;
}
