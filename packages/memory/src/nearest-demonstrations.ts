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
 * The k demonstrations nearest to the query by Levenshtein distance between capped
 * `input + "\n" + output` texts; ties broken by id (plain code-unit order) so results are deterministic.
 */
export function nearestDemonstrations<D extends { id: string; input: string; output: string }>(
  demos: readonly D[],
  query: RetrievalQuery,
  k: number,
  options: NearestOptions = {},
): Array<D & { distance: number }> {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  if (!Number.isInteger(maxChars) || maxChars < 1) throw new RangeError(`maxChars must be a positive integer, got ${maxChars}`);
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`k must be a non-negative integer, got ${k}`);
  if (k === 0 || demos.length === 0) return [];
  const queryText = capText(retrievalText(query), maxChars);
  const scored = demos.map((demo) => ({ demo, d: distance(queryText, capText(retrievalText(demo), maxChars)) }));
  scored.sort((a, b) => a.d - b.d || (a.demo.id < b.demo.id ? -1 : a.demo.id > b.demo.id ? 1 : 0));
  return scored.slice(0, k).map(({ demo, d }) => ({ ...demo, distance: d }));
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
  if (!Number.isInteger(maxChars) || maxChars < 1) throw new RangeError(`maxChars must be a positive integer, got ${maxChars}`);
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`k must be a non-negative integer, got ${k}`);
  if (k === 0 || demos.length === 0) return [];
  const queryText = capText(retrievalText(query), maxChars);
  const scored: { demo: D; d: number }[] = [];
  for (let i = 0; i < demos.length; i++) {
    if (i > 0 && i % COMPARISONS_PER_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const demo = demos[i] as D;
    scored.push({ demo, d: distance(queryText, capText(retrievalText(demo), maxChars)) });
  }
  scored.sort((a, b) => a.d - b.d || (a.demo.id < b.demo.id ? -1 : a.demo.id > b.demo.id ? 1 : 0));
  return scored.slice(0, k).map(({ demo, d }) => ({ ...demo, distance: d }));
}
