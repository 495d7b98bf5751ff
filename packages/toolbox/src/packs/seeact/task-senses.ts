import { LRUCache } from 'lru-cache';
import { NOUN_SUFFIXES, nounHypernyms, verbHypernyms, wordSenses, type WordSense } from './wordnet';
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

/** The singular forms WordNet's morphy rules make of `term`. */
function singulars(term: string): string[] {
  return NOUN_SUFFIXES.filter(([suffix]) => term.length > suffix.length + 1 && term.endsWith(suffix)).map(([suffix, r]) => term.slice(0, -suffix.length) + r);
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

/**
 * Buying said with a verb no phrase lists ("acquire", "obtain", "procure", "secure" a sofa): the
 * action verb usually means getting by purchase or by effort (WordNet: "buy" and every way to
 * buy, "obtain" and every way to obtain, and "get, acquire" itself, not its other kinds such as
 * finding, receiving, earning or borrowing), and what it gets is goods: a noun of the same clause
 * that usually means an artifact, a food or a commodity, not a building or a facility ("secure a
 * sofa", not "obtain directions" nor "secure a parking garage"). "Usually" is measured as for
 * nouns: the senses that count hold over half of the word's SemCor tags. Verbs whose usual sense
 * lies there but that say something else on a website are left out by name (subscribing, taking,
 * recruiting, marketing).
 */
interface VerbConcept extends SenseRef {
  /** Only this synset, not the verbs below it. */
  alone?: boolean;
}
const PURCHASE_VERBS: VerbConcept[] = [{ lemma: 'buy', sense: 1 }, { lemma: 'obtain', sense: 1 }, { lemma: 'acquire', sense: 1, alone: true }];
const NOT_BUYING = new Set(['subscribe', 'take', 'get', 'carry', 'recruit', 'engage', 'enlist', 'market', 'source', 'outsource', 'patent', 'copyright', 'derive', 'reap', 'draw', 'extract', 'excavate', 'nuzzle', 'pry', 'kite', 'suborn']);
const GOODS: SenseRef[] = [{ lemma: 'artifact', sense: 1 }, { lemma: 'food', sense: 1 }, { lemma: 'food', sense: 2 }, { lemma: 'commodity', sense: 1 }];
const NOT_GOODS: SenseRef[] = [{ lemma: 'structure', sense: 1 }, { lemma: 'facility', sense: 1 }, { lemma: 'way', sense: 6 }];
const VERB = 2;

function senseOffset(ref: SenseRef, pos: number): number {
  const sense = wordSenses(ref.lemma).find((s) => s.pos === pos && s.senseNumber === ref.sense);
  if (!sense) throw new Error(`WordNet has no ${pos === VERB ? 'verb' : 'noun'} sense ${ref.lemma} #${ref.sense}`);
  return sense.offset;
}

let verbAnchors: { below: Set<number>; alone: Set<number> } | undefined;
const verbBuys = new Map<number, boolean>();

/** Whether the verb synset at `offset` is a way of buying or obtaining (see PURCHASE_VERBS). */
function isBuyingSynset(offset: number, depth = 0): boolean {
  const known = verbBuys.get(offset);
  if (known !== undefined) return known;
  verbAnchors ??= {
    below: new Set(PURCHASE_VERBS.filter((c) => !c.alone).map((c) => senseOffset(c, VERB))),
    alone: new Set(PURCHASE_VERBS.filter((c) => c.alone).map((c) => senseOffset(c, VERB))),
  };
  let found = verbAnchors.below.has(offset) || verbAnchors.alone.has(offset);
  // Verb hierarchies are shallow (a dozen levels at most).
  if (!found && depth < 20) found = verbHypernyms(offset).some((up) => !verbAnchors!.alone.has(up) && isBuyingSynset(up, depth + 1));
  verbBuys.set(offset, found);
  return found;
}

let goodsAnchors: { concepts: Set<number>; except: Set<number> } | undefined;
const nounGoods = new Map<number, boolean>();

function isGoodsSynset(offset: number, depth = 0): boolean {
  const known = nounGoods.get(offset);
  if (known !== undefined) return known;
  goodsAnchors ??= { concepts: new Set(GOODS.map((c) => senseOffset(c, NOUN))), except: new Set(NOT_GOODS.map((c) => senseOffset(c, NOUN))) };
  let found = false;
  if (goodsAnchors.except.has(offset)) found = false;
  else if (goodsAnchors.concepts.has(offset)) found = true;
  else if (depth < 40) found = nounHypernyms(offset).some((up) => isGoodsSynset(up, depth + 1));
  nounGoods.set(offset, found);
  return found;
}

/** Whether the senses of one lemma that `holds` hold over half its SemCor tags (or, untagged, its first sense of `pos`, when all are of `pos`). */
function usually(senses: WordSense[], pos: number, holds: (s: WordSense) => boolean): boolean {
  const own = senses.filter((s) => s.pos === pos);
  if (own.length === 0) return false;
  const total = senses.reduce((sum, s) => sum + s.tagCount, 0);
  if (total === 0) {
    if (own.length !== senses.length) return false;
    return holds(own.reduce((a, b) => (b.senseNumber < a.senseNumber ? b : a)));
  }
  const count = own.filter((s) => s.tagCount > 0 && holds(s)).reduce((sum, s) => sum + s.tagCount, 0);
  return count * 2 > total;
}

/** Verb endings undone to find a verb's lemma ("acquired", "procuring", "secures"). */
const VERB_SUFFIXES: ReadonlyArray<readonly [string, string]> = [
  ['ies', 'y'], ['es', 'e'], ['es', ''], ['s', ''], ['ied', 'y'], ['ed', 'e'], ['ed', ''], ['ing', 'e'], ['ing', ''],
];

const verbReadings = new LRUCache<string, { buys: boolean }>({ max: 20_000 });

/** Whether `word` (an action word, any inflection) usually means buying or obtaining. */
export function verbMeansBuying(word: string): boolean {
  const cached = verbReadings.get(word);
  if (cached) return cached.buys;
  let buys = false;
  const candidates = [word, ...VERB_SUFFIXES.filter(([suffix]) => word.length > suffix.length + 2 && word.endsWith(suffix)).map(([suffix, r]) => word.slice(0, -suffix.length) + r)];
  for (const lemma of candidates) {
    if (NOT_BUYING.has(lemma)) break;
    const senses = wordSenses(lemma);
    if (!senses.some((s) => s.pos === VERB)) continue;
    buys = usually(senses, VERB, (s) => isBuyingSynset(s.offset));
    break;
  }
  verbReadings.set(word, { buys });
  return buys;
}

const goodsReadings = new LRUCache<string, { goods: boolean }>({ max: 50_000 });

/** Whether `term` (a noun, or two joined by `_`) usually means goods (see above). */
export function nounMeansGoods(term: string): boolean {
  const cached = goodsReadings.get(term);
  if (cached) return cached.goods;
  // As written, or in the singular ("shoes" is also a lemma of its own, "in her shoes").
  const goods = [term, ...singulars(term)].some((form) => usually(wordSenses(form), NOUN, (s) => isGoodsSynset(s.offset)));
  goodsReadings.set(term, { goods });
  return goods;
}

const CLAUSE_TOKEN = /[a-z]+(?:['-][a-z]+)*|[,;:.!?()]/g;
/** Words after which a new clause, with an action of its own, may begin. */
const CLAUSE_BREAK_WORDS = new Set(['and', 'then', 'or', 'but', ',', ';', ':', '.', '!', '?', '(', ')']);
/** Words that end an action's object: its other prepositions ("from IKEA", "for my mother"). */
const OBJECT_ENDS = new Set(['from', 'for', 'in', 'at', 'on', 'to', 'with', 'by', 'near', 'under', 'below', 'over', 'above', 'within', 'via', 'through', 'using', 'before', 'after', 'that', 'which', 'who', 'where', 'when', 'if', 'so']);
/** Words a task opens with before its action. */
const LEAD_INS = new Set('please kindly now then just also go i id im want wanna would like love to can could will you help me let lets us we need should must try'.split(' '));

/**
 * The verbs of `text` (lower case) read by meaning: purchase, with the action and the goods as
 * evidence ("acquire … sofa"), when an action word usually means buying or obtaining and a noun of
 * its object usually means goods. `skip` words (function words) are never nouns of the object.
 */
export function readActionSenses(text: string, skip: ReadonlySet<string>): Partial<Record<TaskCategory, string[]>> {
  const tokens = (text.match(CLAUSE_TOKEN) ?? []).slice(0, MAX_WORDS);
  let clauseStart = true;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (CLAUSE_BREAK_WORDS.has(token)) {
      clauseStart = true;
      continue;
    }
    if (!clauseStart || LEAD_INS.has(token)) continue;
    clauseStart = false;
    if (token.length > MAX_WORD_CHARS || !verbMeansBuying(token)) continue;
    let end = i + 1;
    while (end < tokens.length && !CLAUSE_BREAK_WORDS.has(tokens[end]!) && !OBJECT_ENDS.has(tokens[end]!)) end++;
    const goods = goodsIn(tokens, i + 1, end, skip);
    if (goods) return { purchase: [`${token} … ${goods}`] };
    // "Find a jersey and obtain one": a pronoun object stands for a noun said before.
    if (tokens.slice(i + 1, end).some((t) => PRONOUN_OBJECTS.has(t))) {
      const before = goodsIn(tokens, 0, i, skip);
      if (before) return { purchase: [`${token} … ${before}`] };
    }
  }
  return {};
}

/** Pronouns that stand for an object said before. */
const PRONOUN_OBJECTS = new Set(['it', 'one', 'them', 'these', 'those', 'both']);

/** The first noun (or two-word compound) of tokens[from, to) that usually means goods, or null. */
function goodsIn(tokens: string[], from: number, to: number, skip: ReadonlySet<string>): string | null {
  for (let j = from; j < to; j++) {
    const word = tokens[j]!;
    const next = j + 1 < to ? tokens[j + 1] : undefined;
    if (LIKENESS.has(word) || skip.has(word) || word.length > MAX_WORD_CHARS || !/^[a-z]/.test(word)) continue;
    if (next !== undefined && /^[a-z]/.test(next) && nounMeansGoods(`${word}_${next}`)) return `${word} ${next}`;
    if (nounMeansGoods(word)) return word;
  }
  return null;
}
