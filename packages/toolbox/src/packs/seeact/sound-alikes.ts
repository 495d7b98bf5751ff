import { doubleMetaphone } from 'double-metaphone';
import { LRUCache } from 'lru-cache';
import { cueWords } from './cue-words';

/**
 * Sound-alike spellings of the task classifier's cue words ("flite", "hotle", "moovie", "kar",
 * "pirchis"): a word that is no English word, whose Double Metaphone key (Lawrence Philips'
 * phonetic key, from the `double-metaphone` package) is a cue word's key, and whose spelling is
 * near that cue word's, is read as the cue word. Near: a key of three or more sounds allows an
 * edit distance of half the cue word's length (rounded up); a shorter key ("KR" of car, "P" of
 * buy) only one edit, since many short words share a short key ("guerra" sounds like "car").
 * A guess, like a keyboard slip: the caller trusts it only in a task that reads as English.
 */

const WORD = /[a-z]{3,20}/g;
const MIN_LONG_KEY = 3;
const MAX_LISTED = 20;

/**
 * Each word's verdict (the cue word it sounds like, or null), kept across calls: task words
 * repeat. Bounded, so a stream of invented words cannot grow it. The verdict depends on the
 * caller's `isWord`, which is the same (WordNet's lemmas) for every caller in this package.
 */
const judged = new LRUCache<string, { cue: string | null }>({ max: 50_000 });

let index: ReadonlyMap<string, readonly string[]> | undefined;

/** Each phonetic key of a cue word (of three letters or more), with the cue words that have it. */
function soundIndex(): ReadonlyMap<string, readonly string[]> {
  if (index) return index;
  const built = new Map<string, string[]>();
  for (const word of cueWords()) {
    if (!/^[a-z]{3,}$/.test(word)) continue;
    for (const key of new Set(doubleMetaphone(word))) {
      if (key === '') continue;
      const words = built.get(key);
      if (!words) built.set(key, [word]);
      else if (!words.includes(word)) words.push(word);
    }
  }
  index = built;
  return index;
}

/** Levenshtein distance, stopping early past `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, current[j]!);
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Spellings that sound alike written alike, for comparing spellings: "igh" and "y" as "i",
 * "ph" as "f", "ck" as "k", doubled letters once, a final silent "e" dropped ("flite" and
 * "flight" are both "flit").
 */
function skeleton(word: string): string {
  const spelled = word.replace(/igh/g, 'i').replace(/ph/g, 'f').replace(/ck/g, 'k').replace(/y/g, 'i').replace(/ee|ea/g, 'i').replace(/oo/g, 'u');
  let out = '';
  for (const c of spelled) if (c !== out.at(-1)) out += c;
  return out.length > 2 && out.endsWith('e') ? out.slice(0, -1) : out;
}

/** The cue word `word` sounds like, or null. */
export function soundAlike(word: string): string | null {
  const sounds = soundIndex();
  let found: string | null = null;
  let bestDistance = Infinity;
  for (const key of new Set(doubleMetaphone(word))) {
    for (const cue of sounds.get(key) ?? []) {
      if (cue === word) return null;
      const limit = key.length >= MIN_LONG_KEY ? Math.ceil(cue.length / 2) : 1;
      const distance = Math.min(editDistance(word, cue, limit), editDistance(skeleton(word), skeleton(cue), limit));
      if (distance <= limit && distance < bestDistance) {
        found = cue;
        bestDistance = distance;
      }
    }
  }
  return found;
}

/**
 * `text` (lower case) with each word that is no English word (`isWord`) and sounds like a cue word
 * read as that cue word; `changed` lists the words read so (as written), at most 20.
 */
export function readSoundAlikes(text: string, isWord: (word: string) => boolean): { text: string; changed: string[] } {
  const changed: string[] = [];
  const read = text.replace(WORD, (word) => {
    const cached = judged.get(word);
    let cue = cached?.cue;
    if (cached === undefined) {
      cue = cueWords().has(word) || isWord(word) ? null : soundAlike(word);
      judged.set(word, { cue: cue ?? null });
    }
    if (cue === null || cue === undefined) return word;
    if (changed.length < MAX_LISTED) changed.push(word);
    return cue;
  });
  return changed.length === 0 ? { text, changed } : { text: read, changed };
}
