import anyAscii from 'any-ascii';
import { LRUCache } from 'lru-cache';
import { FOREIGN_WORDS } from './foreign-words';

/**
 * Reading the words of other languages in a task through FOREIGN_WORDS:
 * - a task written in one of its languages (two or more of its words are that language's and not
 *   English) has every word of that language's list read as its English ("Alquila un coche en
 *   Madrid" reads "rent a car in madrid"), English look-alikes included (Italian "camera" is a
 *   room there);
 * - in any other task, a word that is no English word but in a list is read as its English, and
 *   so is a word of another script ("Book a отель", "Rent a 車");
 * - Chinese, Japanese and Korean entries are found inside runs of those scripts (no spaces
 *   between words; Korean particles attach to the word), longest first.
 * A word of another script that no list holds is kept as written in `text`; `guessText` has it
 * transliterated to Latin letters (any-ascii: "флайт" is "flait"), for the guesses that read
 * sound-alike spellings. Linear in the task: one pass over its words, a few map lookups each.
 */

export interface ForeignReading {
  /** The task with the words read replaced by their English. */
  text: string;
  /** `text` with the words of other scripts no list holds transliterated to Latin letters. */
  guessText: string;
  /** The words read, as written (at most 20). */
  translated: string[];
  /** The language the task is written in, when two or more of its words say so (ISO 639-1), else null. */
  language: string | null;
}

const WORD = /[\p{L}\p{M}]+(?:['\u2019][\p{L}\p{M}]+)*/gu;
/** The task's first word (its action, capitalised as a sentence opens). */
const WORD_AT_START = /[\p{L}\p{M}]+/u;
/** A letter of a script other than Latin. */
const OTHER_SCRIPT_LETTER = /(?!\p{Script=Latin})\p{L}/u;
const LATIN_WORD = /^[\p{Script=Latin}\p{M}'\u2019-]+$/u;
/**
 * Letters of Cyrillic and Greek drawn as a Latin letter is (not merely alike in small caps, as
 * Cyrillic л or т): a word made only of these and Latin letters is a Latin word in disguise.
 */
const LOOK_ALIKE_WORD = /^[\p{Script=Latin}'\u2019аеіјорсухѕһԁԛԝАВЕКМНОРСТХІЈЅУΑΒΕΖΗΙΚΜΝΟΡΤΥΧοι]+$/u;
/** Scripts written without spaces between words (or with particles attached to them). */
const RUN_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const MIN_FOREIGN_WORDS = 2;
const MAX_LISTED = 20;
const MAX_RUN_ENTRY_CHARS = 8;
const MAX_CACHED_WORDS = 10_000;

interface Lexicon {
  byLanguage: Map<string, Map<string, string>>;
  /** Every language's words (the first language listing a form wins). */
  any: Map<string, string>;
  /** Entries of the run scripts, by their text. */
  runs: Map<string, string>;
  /** The first characters of those entries. */
  runStarts: Set<string>;
}

let lexicon: Lexicon | undefined;

const ASCII = /^[\u0020-\u007e]*$/;
const stripAccents = (word: string) => (ASCII.test(word) ? word : word.normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC'));

function foreignLexicon(): Lexicon {
  if (lexicon) return lexicon;
  const byLanguage = new Map<string, Map<string, string>>();
  const any = new Map<string, string>();
  const runs = new Map<string, string>();
  for (const [language, list] of Object.entries(FOREIGN_WORDS)) {
    const words = new Map<string, string>();
    for (const line of list.split('\n')) {
      const at = line.lastIndexOf('=');
      if (at <= 0) continue;
      const english = line.slice(at + 1).trim();
      for (const form of line.slice(0, at).trim().split(/\s+/)) {
        const lower = form.toLowerCase().normalize('NFC');
        for (const key of new Set([lower, stripAccents(lower)])) {
          if (!words.has(key)) words.set(key, english);
          if (!any.has(key)) any.set(key, english);
          if (RUN_SCRIPT.test(key) && !runs.has(key)) runs.set(key, english);
        }
      }
    }
    byLanguage.set(language, words);
  }
  lexicon = { byLanguage, any, runs, runStarts: new Set([...runs.keys()].map((k) => k[0]!)) };
  return lexicon;
}

/**
 * A run of Chinese, Japanese or Korean with the entries found in it read as English (set off by
 * spaces), longest first. The entries are in the Basic Multilingual Plane, so the run is walked
 * by code units; a position whose character starts no entry costs one set lookup.
 */
function readRun(run: string, lexicon: Lexicon, translated: string[]): string {
  let out = '';
  let i = 0;
  while (i < run.length) {
    let found = 0;
    if (lexicon.runStarts.has(run[i]!)) {
      for (let length = Math.min(MAX_RUN_ENTRY_CHARS, run.length - i); length > 0 && found === 0; length--) {
        const piece = run.slice(i, i + length);
        const english = lexicon.runs.get(piece);
        if (english !== undefined) {
          out += ` ${english} `;
          if (translated.length < MAX_LISTED) translated.push(piece);
          found = length;
        }
      }
    }
    if (found === 0) {
      out += run[i];
      i++;
    } else i += found;
  }
  return out;
}

/** Whether `word` is written in another script than Latin (not Latin letters and their exact look-alikes). */
export function isOtherScriptWord(word: string): boolean {
  return !LATIN_WORD.test(word) && !LOOK_ALIKE_WORD.test(word);
}

/** Romance and Germanic endings and their English cognates' endings ("-ción" "-tion", "-tät" "-ty"). */
const COGNATE_ENDINGS: ReadonlyArray<readonly [RegExp, string]> = [
  [/(?:ciones|cion|coes|cao|zioni|zione|tions)$/, 'tion'],
  [/(?:siones|sion|soes|sao|sioni|sione|sions)$/, 'sion'],
  [/(?:dades|dad|dade|tat|tät|ta|te)$/, 'ty'],
  [/(?:ias|ia|ie|ies)$/, 'y'],
  [/(?:icos|icas|ico|ica|ique|isch|ische|ik)$/, 'ic'],
  [/(?:ivos|ivas|ivo|iva|if|ive)$/, 'ive'],
  [/(?:osos|osas|oso|osa|eux|euse)$/, 'ous'],
  [/(?:istas|ista|iste)$/, 'ist'],
  [/(?:ismo|isme|ismus)$/, 'ism'],
  [/(?:arios|arias|ario|aria|aire)$/, 'ary'],
  [/(?:encias|encia|enza|enz)$/, 'ence'],
  [/(?:ancias|ancia|anza|anz)$/, 'ance'],
  [/(?:mente)$/, 'ly'],
  [/(?:os|as|es|i|e|o|a|en|s)$/, ''],
];
const MIN_COGNATE_CHARS = 4;

/**
 * English words a word of a Romance or Germanic language may be a cognate of: its ending
 * replaced ("nacional" "national", "categoría" "category", "Kategorie" "category"), "f" as "ph"
 * ("biografía" "biography"), "k" as "c". Each a guess that counts only when it is an English word.
 */
function cognates(word: string): string[] {
  const plain = stripAccents(word).replace(/cion/g, 'tion');
  const out = new Set<string>();
  for (const [ending, english] of COGNATE_ENDINGS) {
    if (!ending.test(plain)) continue;
    const stem = plain.replace(ending, english);
    for (const form of [stem, stem.replace(/f/g, 'ph'), stem.replace(/k/g, 'c'), stem.replace(/k/g, 'c').replace(/f/g, 'ph'), `${stem}e`]) {
      if (form.length >= MIN_COGNATE_CHARS) out.add(form);
    }
  }
  return [...out];
}

/** Whether each word the lists hold is also English, once asked (bounded: words repeat). */
const englishVerdicts = new LRUCache<string, { english: boolean }>({ max: 20_000 });

function isEnglishCached(word: string, isEnglish: (word: string) => boolean): boolean {
  let verdict = englishVerdicts.get(word);
  if (!verdict) {
    verdict = { english: isEnglish(word) };
    englishVerdicts.set(word, verdict);
  }
  return verdict.english;
}

/**
 * How the words of other languages in `text` read (see above); `isEnglish` tells English words,
 * `isLemma` the words a cognate may be (a lemma as written or inflected, not a compound: Spanish
 * "autocaravana" is no "auto|caravan").
 */
export function readForeignWords(text: string, isEnglish: (word: string) => boolean, isLemma: (word: string) => boolean = isEnglish): ForeignReading {
  const lists = foreignLexicon();
  const { byLanguage, any } = lists;
  // Which language, if any, the task is written in: its words that are a language's and not English.
  const hits = new Map<string, number>();
  // One test of the whole text for letters of another script; then each word one or two lookups.
  let anyForeign = OTHER_SCRIPT_LETTER.test(text);
  for (const [word] of text.matchAll(WORD)) {
    const lower = ASCII.test(word) ? word.toLowerCase() : word.toLowerCase().normalize('NFC');
    const plain = stripAccents(lower);
    if (!any.has(lower) && !any.has(plain)) continue;
    const latin = LATIN_WORD.test(lower);
    if (latin && isEnglishCached(lower, isEnglish)) continue;
    for (const [language, words] of byLanguage) {
      if (words.has(lower) || words.has(plain)) {
        hits.set(language, (hits.get(language) ?? 0) + 1);
        anyForeign = true;
      }
    }
  }
  if (!anyForeign) return { text, guessText: text, translated: [], language: null };
  let language: string | null = null;
  let most = MIN_FOREIGN_WORDS - 1;
  for (const [l, n] of hits) {
    if (n > most) {
      language = l;
      most = n;
    }
  }
  const own = language ? byLanguage.get(language)! : null;
  const translated: string[] = [];
  let guessed = false;
  const read = (word: string, guess: boolean, first: boolean): string => {
    const lower = word.toLowerCase().normalize('NFC');
    const plain = stripAccents(lower);
    const latin = LATIN_WORD.test(lower);
    // In an English task, a capitalised Latin word past the first is a name ("Avis", "Le Vol").
    if (!own && latin && !first && word[0] !== lower[0]) return word;
    const english = own?.get(lower) ?? own?.get(plain) ?? (latin && isEnglishCached(lower, isEnglish) ? undefined : (any.get(lower) ?? any.get(plain)));
    if (english !== undefined) {
      if (!guess && translated.length < MAX_LISTED) translated.push(word);
      return english;
    }
    if (latin) {
      // In a task of another language, a word its list lacks may be a cognate of an English word.
      if (own && !isEnglish(lower)) {
        const cognate = cognates(lower).find(isLemma);
        if (cognate !== undefined) {
          if (!guess && translated.length < MAX_LISTED) translated.push(word);
          return cognate;
        }
      }
      return word;
    }
    // A word of Latin letters and their exact look-alikes of other scripts ("Sаmѕung" with
    // Cyrillic а and ѕ) is read as Latin letters by the text's normalization, not transliterated.
    if (LOOK_ALIKE_WORD.test(word)) return word;
    if (RUN_SCRIPT.test(word)) {
      const inRun = readRun(word, lists, guess ? [] : translated);
      if (!guess) return inRun;
      // Left-over characters of the run, transliterated for the guesses.
      return inRun.replace(/[^\s\p{Script=Latin}]+/gu, (rest) => ` ${anyAscii(rest).toLowerCase()} `);
    }
    if (!guess) return word;
    guessed = true;
    return anyAscii(word).toLowerCase().replace(/[^a-z'-]/g, '');
  };
  // Each distinct word is read once per call (a long task repeats its words).
  const seen = new Map<string, string>();
  const firstWord = WORD_AT_START.exec(text)?.[0];
  const readOnce = (w: string, at: number, guess: boolean) => {
    const first = firstWord !== undefined && at === text.indexOf(firstWord);
    const key = `${guess ? 1 : 0}${first ? 1 : 0}${w}`;
    let r = seen.get(key);
    if (r === undefined) {
      r = read(w, guess, first);
      if (seen.size < MAX_CACHED_WORDS) seen.set(key, r);
    }
    return r;
  };
  const out = text.replace(WORD, (w: string, at: number) => readOnce(w, at, false));
  const guessText = text.replace(WORD, (w: string, at: number) => readOnce(w, at, true));
  return { text: out, guessText: guessed || guessText !== out ? guessText : out, translated, language };
}
