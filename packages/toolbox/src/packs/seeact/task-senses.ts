import { LRUCache } from 'lru-cache';
import { NOUN_SUFFIXES, nounHypernyms, wordSenses, type WordSense } from './wordnet';
import type { TaskCategory } from './task-lexicon';

/**
 * Reading a task's nouns by meaning, for the words no phrase list names: a noun belongs to a
 * category when the WordNet concept it usually means lies under one of the category's concepts
 * (a "jetliner" is an airplane, a "hostel" a hotel, "musics" music, "TV" broadcasting).
 *
 * A category's concepts are WordNet noun senses, written as lemma and sense number; each takes
 * every concept below it (its hyponyms), minus the `except` senses and theirs. The lists name
 * concepts, never words of tasks: WordNet supplies the words (e.g. about 80 kinds of car).
 *
 * "Usually means" is measured, not guessed: the senses that lie under the category must hold
 * more than half of the word's SemCor tag count, over every part of speech (so "special", mostly
 * an adjective, is not a TV special, and "country", mostly a nation, is not country music). A
 * word never tagged in SemCor ("minivan", "internship") is read in its first noun sense, and only
 * when it has no sense outside the nouns.
 */
interface SenseRef {
  lemma: string;
  sense: number;
}
interface CategorySenses {
  concepts: SenseRef[];
  except: SenseRef[];
}

export const TASK_SENSES: Partial<Record<TaskCategory, CategorySenses>> = {
  // A car the user drives: cars, trucks and motor homes, not a taxi someone else drives.
  car: {
    concepts: [{ lemma: 'car', sense: 1 }, { lemma: 'truck', sense: 1 }, { lemma: 'recreational_vehicle', sense: 1 }],
    except: [{ lemma: 'cab', sense: 3 }],
  },
  // Recorded movies, music and video, and broadcast programmes; not staged works seen live.
  media: {
    concepts: [
      { lemma: 'movie', sense: 1 },
      { lemma: 'music', sense: 1 },
      { lemma: 'television', sense: 1 },
      { lemma: 'broadcast', sense: 2 },
      { lemma: 'video_recording', sense: 1 },
      { lemma: 'sound_recording', sense: 1 },
      { lemma: 'video', sense: 1 },
    ],
    except: [{ lemma: 'opera', sense: 1 }, { lemma: 'musical', sense: 1 }],
  },
  hotel: { concepts: [{ lemma: 'hotel', sense: 1 }], except: [] },
  // A post one is employed in; "occupation" as a whole would take in every trade and lesson.
  job: { concepts: [{ lemma: 'position', sense: 6 }], except: [] },
  flight: {
    concepts: [{ lemma: 'air_travel', sense: 1 }, { lemma: 'airplane', sense: 1 }, { lemma: 'airliner', sense: 1 }, { lemma: 'airline', sense: 2 }],
    except: [],
  },
};

const NOUN = 1;

function nounOffset(ref: SenseRef): number {
  const sense = wordSenses(ref.lemma).find((s) => s.pos === NOUN && s.senseNumber === ref.sense);
  // The concept lists are checked by a test against the shipped WordNet; a missing one is a bug.
  if (!sense) throw new Error(`WordNet has no noun sense ${ref.lemma} #${ref.sense}`);
  return sense.offset;
}

let anchors: { concepts: Map<number, TaskCategory>; except: Set<number> } | undefined;

function resolvedAnchors(): { concepts: Map<number, TaskCategory>; except: Set<number> } {
  if (anchors) return anchors;
  const concepts = new Map<number, TaskCategory>();
  const except = new Set<number>();
  for (const [category, senses] of Object.entries(TASK_SENSES) as Array<[TaskCategory, CategorySenses]>) {
    for (const ref of senses.concepts) concepts.set(nounOffset(ref), category);
    for (const ref of senses.except) except.add(nounOffset(ref));
  }
  anchors = { concepts, except };
  return anchors;
}

/** Category of each noun synset, once computed (WordNet's noun hierarchy is a DAG about 20 deep). */
const synsetCategory = new Map<number, TaskCategory | null>();

/** The category a noun synset lies under, or null. */
export function categoryOfSynset(offset: number): TaskCategory | null {
  const known = synsetCategory.get(offset);
  if (known !== undefined) return known;
  const { concepts, except } = resolvedAnchors();
  let found: TaskCategory | null = null;
  if (except.has(offset)) found = null;
  else if (concepts.has(offset)) found = concepts.get(offset)!;
  else {
    for (const up of nounHypernyms(offset)) {
      found = categoryOfSynset(up);
      if (found) break;
    }
  }
  synsetCategory.set(offset, found);
  return found;
}

/** The category `senses` (one lemma's) usually mean, by the rule in this module's comment. */
function usualCategory(senses: WordSense[]): TaskCategory | null {
  const nouns = senses.filter((s) => s.pos === NOUN);
  if (nouns.length === 0) return null;
  const total = senses.reduce((sum, s) => sum + s.tagCount, 0);
  if (total === 0) {
    if (nouns.length !== senses.length) return null;
    const first = nouns.reduce((a, b) => (b.senseNumber < a.senseNumber ? b : a));
    return categoryOfSynset(first.offset);
  }
  const byCategory = new Map<TaskCategory, number>();
  for (const s of nouns) {
    if (s.tagCount === 0) continue;
    const category = categoryOfSynset(s.offset);
    if (category) byCategory.set(category, (byCategory.get(category) ?? 0) + s.tagCount);
  }
  for (const [category, count] of byCategory) if (count * 2 > total) return category;
  return null;
}

/**
 * The category each term usually means (null for none), once looked up: task words repeat, and a
 * lookup is up to nine binary searches. Bounded, so a stream of invented words cannot grow it.
 */
const termCategory = new LRUCache<string, { category: TaskCategory | null }>({ max: 50_000 });

function usualCategoryOfTerm(term: string): TaskCategory | null {
  const cached = termCategory.get(term);
  if (cached) return cached.category;
  const category = usualCategory(termSenses(term));
  termCategory.set(term, { category });
  return category;
}

/** WordNet's senses of `term` as written, or else of the first singular form WordNet knows. */
function termSenses(term: string): WordSense[] {
  const asWritten = wordSenses(term);
  if (asWritten.length > 0) return asWritten;
  for (const [suffix, replacement] of NOUN_SUFFIXES) {
    if (term.length > suffix.length + 1 && term.endsWith(suffix)) {
      const senses = wordSenses(term.slice(0, -suffix.length) + replacement);
      if (senses.length > 0) return senses;
    }
  }
  return [];
}

/** Words that make the noun after them a likeness, not the thing: a toy sedan is a toy. */
const LIKENESS = new Set(['toy', 'toys', 'model', 'miniature', 'replica', 'scale', 'plush', 'lego', 'rc', 'diecast', 'die-cast', 'paper', 'inflatable', 'costume']);

const WORD = /[a-z]+(?:-[a-z]+)*/g;
/** Words read per task: its start holds what it asks for. */
const MAX_WORDS = 200;
const MAX_WORD_CHARS = 40;

/**
 * The nouns of `text` (lower-case, as classifyTask normalizes it) that usually mean something in
 * a category, by category: single words and two-word compounds ("sports car"), at most the first
 * 200 words. `skip` words (function words) are never read, nor a word after a likeness ("toy",
 * "model").
 */
export function readTaskSenses(text: string, skip: ReadonlySet<string>): Partial<Record<TaskCategory, string[]>> {
  const words = (text.match(WORD) ?? []).slice(0, MAX_WORDS).filter((w) => w.length <= MAX_WORD_CHARS);
  const found: Partial<Record<TaskCategory, Set<string>>> = {};
  const add = (category: TaskCategory | null, term: string) => {
    if (!category) return;
    found[category] ??= new Set();
    found[category].add(term);
  };
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const next = words[i + 1];
    if (i > 0 && LIKENESS.has(words[i - 1]!)) continue;
    if (next !== undefined) add(usualCategoryOfTerm(`${word}_${next}`), `${word} ${next}`);
    if (!skip.has(word)) add(usualCategoryOfTerm(word), word);
  }
  return Object.fromEntries(Object.entries(found).map(([category, terms]) => [category, [...terms]]));
}
