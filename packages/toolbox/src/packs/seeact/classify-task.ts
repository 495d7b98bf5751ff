import { normalizeText, readLeetspeak, readSlips, readWordBreaks, spelledReadings, wordBreakReader, type WordBreakReader } from '@guardagent/rails/text';
import { matchNearby } from './match-nearby';
import { stemPlurals } from './s-stemmer';
import { cueSlips, cueWords } from './cue-words';
import { readEmojiNames } from './emoji-names';
import { FUNCTION_WORDS, isEnglishWord, isLemmaForm } from './english-reading';
import { readForeignWords } from './foreign-reading';
import { readMarkup } from './markup';
import { readSoundAlikes } from './sound-alikes';
import { readActionSenses, readTaskSenses } from './task-senses';
import { PURCHASE_OVERRIDING, TASK_CATEGORIES, TASK_LEXICON, type ContextualCue, type NearbyCue, type TaskCategory } from './task-lexicon';

export interface TaskClassification {
  /** Matching categories in TASK_CATEGORIES order; empty means "other" (no rule applies). */
  categories: TaskCategory[];
  /** The phrases that put the task in each category (for explanations and debugging). */
  evidence: Partial<Record<TaskCategory, string[]>>;
  /**
   * Words the second reading guessed at, as written, when that reading placed the task in a
   * category (otherwise empty): keyboard slips of the cues' words ("flihgt" as "flight") and
   * cue words broken in two or run into the next ("fli ght", "rentalcar"). A guess can be wrong
   * on a foreign word ("volo", Italian for flight, is one letter from "volvo"), so a caller
   * should then trust the categories only if the task reads as English (readEnglish).
   */
  guessed: string[];
  /**
   * The language the task is written in when it is not English and its words were read through
   * the word lists of other languages (see foreign-reading), else null. A caller should then trust
   * the categories only if the task reads whole (readEnglish): a word the lists do not hold may
   * be a cue word.
   */
  language: string | null;
  /** The words of other languages read as English, as written (at most 20). */
  translated: string[];
}

/**
 * Lower-case, straight quotes, one space, and what an attacker changes without changing what a
 * reader sees folded away (full-width and accented letters, soft hyphens and zero-width
 * characters, look-alike letters of other scripts): phrase patterns then need no variants for
 * typography or disguise.
 */
export function normalizeTaskText(task: string): string {
  return normalizeText(readMarkup(String(task ?? '')))
    .text.replace(/[\u2018\u2019\u02bc`]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2010-\u2015]/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The text a cue matches in `text`, or null. */
function matchCue(text: string, cue: RegExp | ContextualCue | NearbyCue): string | null {
  if ('first' in cue) return matchNearby(text, cue);
  const { pattern, unless } = cue instanceof RegExp ? { pattern: cue, unless: null } : cue;
  if (unless?.test(text)) return null;
  const m = pattern.exec(text);
  return m ? m[0] : null;
}

/** `text` with the look-alike phrases of `category` blanked out (same length, so offsets hold). */
function maskCategory(text: string, category: TaskCategory): string {
  return TASK_LEXICON[category].masks.reduce((t, mask) => t.replace(mask, (m) => ' '.repeat(m.length)), text);
}

/**
 * The cue phrases of `category` found in `text`, with the category's look-alikes masked out.
 * `reread` (with `text` through stemPlurals) says `text` is the second reading (see
 * secondReading, applied before the masks so a disguised look-alike is still masked): plurals are
 * then read as singulars after the masks (so a masked name such as "steve jobs" cannot turn into
 * a cue).
 */
function matchCategory(text: string, category: TaskCategory, reread?: { stemmed: string }): string[] {
  const { cues } = TASK_LEXICON[category];
  const maskedOnce = maskCategory(text, category);
  // Plurals as singulars, except the cue words themselves (the S-stemmer makes "movies" "movy").
  // Most masks change nothing; then the stemmed text is the one classifyTask already made.
  const masked = !reread ? maskedOnce : maskedOnce === text ? reread.stemmed : stemPlurals(maskedOnce, cueWords());
  const hits: string[] = [];
  for (const cue of cues) {
    const hit = matchCue(masked, cue);
    if (hit !== null) hits.push(hit.trim());
  }
  return hits;
}

/**
 * The second reading before masks, in this order:
 * - emoji read as their names ("✈️" as "airplane"; see emoji-names);
 * - spelled-out words joined ("B u y a sofa", "b.u.y"; both ways of reading a lone "a" at a
 *   run's edge, one per line);
 * - leetspeak read as letters ("r3nt" as "rent");
 * - cue words broken in two or run together read whole and alone ("fli ght", "rentalcar"; see
 *   word-breaks), a guess;
 * - a word that is no English word but one keyboard slip from a word of the cues read as that
 *   word ("flihgt" as "flight", "purchse" as "purchase"; see keyboard-slips), a guess.
 */
let breaksReader: WordBreakReader | undefined;

/** "By/bye a sofa" opening a task is "buy" said by sound (the other homophones are English words of their own). */
const BUY_BY_SOUND = /^((?:please |i want to |i'd like to )?)(?:by|bye)(?= (?:a|an|some|one|two|three|four|five|six|\d+|me|my|new|the cheapest)\b)/;

function secondReading(text: string): { text: string; guessed: string[] } {
  const spelled = readLeetspeak(spelledReadings(readEmojiNames(text)));
  // Words spelled out or in leetspeak read through the word lists of other languages too ("k4ufen").
  const letters = spelled === text ? spelled : readForeignWords(spelled, isEnglishWord, isLemmaForm).text;
  breaksReader ??= wordBreakReader({ cueWords: cueWords(), isWord: isLemmaForm });
  const breaks = readWordBreaks(letters, breaksReader);
  const slips = readSlips(breaks.text, cueSlips(), isEnglishWord);
  // Sound-alike spellings ("moovie", "apartmint") of words the slips left unread: words that are
  // no lemma as written or inflected (a compound of two words, "apart|mint", may be one).
  const sounds = readSoundAlikes(slips.text, isLemmaForm);
  const homophone = BUY_BY_SOUND.test(sounds.text);
  const read = homophone ? sounds.text.replace(BUY_BY_SOUND, '$1buy') : sounds.text;
  return { text: read, guessed: [...breaks.changed, ...slips.slips, ...sounds.changed, ...(homophone ? ['by'] : [])] };
}

/**
 * Drop "purchase" when a category with its own buying rule (car, hotel, flight) is present, and
 * not only `guessed` (a guess never lifts a rule: "Buy a rentalcar", read as "rental car", is a
 * car and still a purchase).
 */
export function resolveCategories(found: Iterable<TaskCategory>, guessed: ReadonlySet<TaskCategory> = new Set()): TaskCategory[] {
  const set = new Set(found);
  if (PURCHASE_OVERRIDING.some((c) => set.has(c) && !guessed.has(c))) set.delete('purchase');
  return TASK_CATEGORIES.filter((c) => set.has(c));
}

/**
 * Which rule categories a web task falls in (purchase, car, media, hotel, job, flight), by
 * meaning-level phrase matching (stems, synonyms and brands, with look-alikes masked out), and,
 * when no phrase matches, by the WordNet meaning of its nouns (see task-senses).
 */
export function classifyTask(task: string): TaskClassification {
  // Read as written, then once more (secondReading: emoji names, spelled-out words joined,
  // leetspeak read as letters, broken and run-together words and slips guessed at) with plurals
  // as singulars ("musics"). The second reading can only add a category, never remove one
  // ("4runner" stays a car in the first reading even though the second has "arunner"), and it is
  // matched only for a category the first does not show, so an ordinary task pays little for it.
  // A category it finds while it holds guesses is marked so (placedByGuess).
  // Markup dropped and words of other languages read through their word lists first (a
  // dictionary reading, not a guess); words of other scripts the lists do not hold are
  // transliterated for the second reading's guesses only.
  const foreign = readForeignWords(readMarkup(String(task ?? '')), isEnglishWord, isLemmaForm);
  const text = normalizeTaskText(foreign.text);
  const { text: reread, guessed } = secondReading(foreign.guessText === foreign.text ? text : normalizeTaskText(foreign.guessText));
  const stemmed = stemPlurals(reread, cueWords());
  const differs = stemmed !== text;
  const evidence: Partial<Record<TaskCategory, string[]>> = {};
  const placedByGuess = new Set<TaskCategory>();
  for (const category of TASK_CATEGORIES) {
    let hits = matchCategory(text, category);
    if (hits.length === 0 && differs) {
      hits = matchCategory(reread, category, { stemmed });
      if (hits.length > 0 && guessed.length > 0) placedByGuess.add(category);
    }
    if (hits.length > 0) evidence[category] = hits;
  }
  // A task no phrase places is read once more by meaning: its nouns through WordNet (a
  // "jetliner" is an airplane), after the category's look-alikes are masked. Only then, so a
  // phrase-classified task pays nothing for it and is never reclassified by it.
  // Read unmasked first (one pass; most such tasks name nothing), then each category found again
  // with its look-alikes masked.
  if (Object.keys(evidence).length === 0) {
    for (const category of Object.keys(readTaskSenses(text, FUNCTION_WORDS)) as TaskCategory[]) {
      const hits = readTaskSenses(maskCategory(text, category), FUNCTION_WORDS)[category];
      if (hits) evidence[category] = hits;
    }
  }
  // Buying said with a verb no phrase lists ("acquire a sofa"), read by the verb's and its
  // object's meaning (see task-senses), when nothing else shows a purchase.
  if (!evidence.purchase) {
    const bought = readActionSenses(maskCategory(text, 'purchase'), FUNCTION_WORDS).purchase;
    if (bought) evidence.purchase = bought;
  }
  const categories = resolveCategories(Object.keys(evidence) as TaskCategory[], placedByGuess);
  for (const c of Object.keys(evidence) as TaskCategory[]) if (!categories.includes(c)) delete evidence[c];
  // Guesses are reported only when the second reading placed the task: a category the words as
  // written show needs none ("add a cheaest recliner to that list" is a purchase anyway).
  return { categories, evidence, guessed: placedByGuess.size > 0 ? guessed : [], language: foreign.language, translated: foreign.translated };
}
