import { distance } from 'fastest-levenshtein';

/**
 * Levenshtein is O(n·m): two 1 MB outputs would take minutes. Texts longer than this are cut before
 * comparing (see capText). 4000 chars keeps one comparison in the low milliseconds while covering the
 * whole of typical agent inputs/outputs.
 */
export const DEFAULT_MAX_CHARS = 4000;

export interface RetrievalQuery {
  input: string;
  output: string;
}

export interface NearestOptions {
  /** Cap on each compared text (query and demonstration), in UTF-16 code units. Default DEFAULT_MAX_CHARS. */
  maxChars?: number;
}

/** What retrieval compares: the paper's nearest-neighbour key is the case's input and output together. */
export function retrievalText(item: { input: string; output: string }): string {
  return `${item.input}\n${item.output}`;
}

/**
 * Cut a text to maxChars, keeping its head and its tail (half each): the head carries the start of the input,
 * the tail the end of the output, which is usually the action being judged.
 */
export function capText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.ceil(maxChars / 2);
  const tail = maxChars - head;
  return text.slice(0, head) + (tail > 0 ? text.slice(text.length - tail) : '');
}

/**
 * Above this many demonstrations retrieval has two stages: every demonstration is compared on its
 * first and last PREFILTER_CHARS / 2 characters only, and the nearest `max(4k, MIN_CANDIDATES)` of
 * those are compared in full (maxChars). One comparison costs about |a|·|b|/32 steps (bit-parallel
 * Levenshtein), so a check costs at most N·PREFILTER_CHARS²/32 + candidates·maxChars²/32 whatever
 * the demonstrations hold: with the cap of 1,000 demonstrations of 4,000+ characters, ~18M steps
 * instead of ~500M (one check once took 31 s on a loaded machine). With at most that many
 * demonstrations every one is compared in full, as before. The two stages return the exact nearest
 * whenever those are among the candidates: a demonstration close to the query in full is close on
 * its head and tail too, so the near ones normally are; a far one may be swapped for another far one.
 */
const MIN_CANDIDATES = 32;
const PREFILTER_CHARS = 256;

type Scored<D> = { demo: D; d: number };

const byDistanceThenId = <D extends { id: string }>(a: Scored<D>, b: Scored<D>) =>
  a.d - b.d || (a.demo.id < b.demo.id ? -1 : a.demo.id > b.demo.id ? 1 : 0);

function checkArgs(k: number, maxChars: number): void {
  if (!Number.isInteger(maxChars) || maxChars < 1) throw new RangeError(`maxChars must be a positive integer, got ${maxChars}`);
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`k must be a non-negative integer, got ${k}`);
}

/** How many of N demonstrations the first stage keeps, and on how many characters it compares (null: one stage). */
function firstStage(n: number, k: number, maxChars: number): { keep: number; chars: number } | null {
  const keep = Math.max(4 * k, MIN_CANDIDATES);
  const chars = Math.min(PREFILTER_CHARS, maxChars);
  return n > keep && maxChars > chars ? { keep, chars } : null;
}

/** The demonstrations scored on texts capped to `chars`, nearest first, the first `keep`. */
function nearestOf<D extends { id: string; input: string; output: string }>(scored: Scored<D>[], keep: number): Scored<D>[] {
  return scored.sort(byDistanceThenId).slice(0, keep);
}

const scoreOne = <D extends { input: string; output: string }>(queryText: string, demo: D, chars: number): number =>
  distance(queryText, capText(retrievalText(demo), chars));

/**
 * The k demonstrations nearest to the query by Levenshtein distance between capped
 * `input + "\n" + output` texts (two stages above MIN_CANDIDATES demonstrations); ties broken by id
 * (plain code-unit order) so results are deterministic.
 */
export function nearestDemonstrations<D extends { id: string; input: string; output: string }>(
  demos: readonly D[],
  query: RetrievalQuery,
  k: number,
  options: NearestOptions = {},
): Array<D & { distance: number }> {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  checkArgs(k, maxChars);
  if (k === 0 || demos.length === 0) return [];
  const stage = firstStage(demos.length, k, maxChars);
  const scoreAll = (list: readonly D[], chars: number, keep: number) => {
    const queryText = capText(retrievalText(query), chars);
    return nearestOf(list.map((demo) => ({ demo, d: scoreOne(queryText, demo, chars) })), keep);
  };
  const shortlist = stage ? scoreAll(demos, stage.chars, stage.keep).map((s) => s.demo) : demos;
  return scoreAll(shortlist, maxChars, k).map(({ demo, d }) => ({ ...demo, distance: d }));
}

/** Comparisons between two yields to the event loop (each is at most a few ms at DEFAULT_MAX_CHARS). */
const COMPARISONS_PER_SLICE = 16;

/**
 * nearestDemonstrations for a worker: the same result, but the comparisons run in slices with a
 * yield to the event loop between them, so a policy with many long demonstrations delays only its
 * own retrieval, never the worker's other jobs, lock renewals or health checks.
 */
export async function nearestDemonstrationsYielding<D extends { id: string; input: string; output: string }>(
  demos: readonly D[],
  query: RetrievalQuery,
  k: number,
  options: NearestOptions = {},
): Promise<Array<D & { distance: number }>> {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  checkArgs(k, maxChars);
  if (k === 0 || demos.length === 0) return [];
  const stage = firstStage(demos.length, k, maxChars);
  let compared = 0;
  const scoreAll = async (list: readonly D[], chars: number, keep: number) => {
    const queryText = capText(retrievalText(query), chars);
    const scored: Scored<D>[] = [];
    for (const demo of list) {
      if (compared++ > 0 && compared % COMPARISONS_PER_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      scored.push({ demo, d: scoreOne(queryText, demo, chars) });
    }
    return nearestOf(scored, keep);
  };
  const shortlist = stage ? (await scoreAll(demos, stage.chars, stage.keep)).map((s) => s.demo) : demos;
  return (await scoreAll(shortlist, maxChars, k)).map(({ demo, d }) => ({ ...demo, distance: d }));
}
