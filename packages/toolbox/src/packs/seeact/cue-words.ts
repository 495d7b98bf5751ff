import { patternWords, slipIndex } from '@guardagent/rails/text';
import { TASK_CATEGORIES, TASK_LEXICON, type CategoryLexicon } from './task-lexicon';

/** The patterns of a category's cues (not its masks, nor a cue's `unless` context). */
function cuePatterns(lexicon: CategoryLexicon): RegExp[] {
  return lexicon.cues.flatMap((cue) => (cue instanceof RegExp ? [cue] : 'first' in cue ? [cue.first, cue.then] : [cue.pattern]));
}

let words: ReadonlySet<string> | undefined;

/** The words the task classifier's cue phrases are made of ("flight", "hotel", "cart", "toyota"): see patternWords. */
export function cueWords(): ReadonlySet<string> {
  words ??= patternWords(
    TASK_CATEGORIES.flatMap((category) => cuePatterns(TASK_LEXICON[category])),
    3,
  );
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
