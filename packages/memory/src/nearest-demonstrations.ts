import { DemonstrationIndex } from './demonstration-index';
import { DEFAULT_MAX_CHARS, checkRetrievalArgs, type RetrievalQuery } from './retrieval-text';

export interface NearestOptions {
  /** Cap on each compared text (query and demonstration), in UTF-16 code units. Default DEFAULT_MAX_CHARS. */
  maxChars?: number;
  /**
   * Budget of exact comparison work per query, in word steps (DEFAULT_MAX_STEPS). Infinity: always
   * exact, whatever it costs. See DemonstrationIndex.
   */
  maxSteps?: number;
}

type Indexable = { id: string; input: string; output: string };

/**
 * The k demonstrations nearest to the query by Levenshtein distance between capped
 * `input + "\n" + output` texts; ties broken by id (plain code-unit order) so results are
 * deterministic. Exact (within options.maxSteps): a DemonstrationIndex prunes with lower bounds,
 * never by guessing. Given a
 * list it builds the index for this one call; a caller that queries the same list again should keep
 * the index (DemonstrationStore's cache does).
 */
export function nearestDemonstrations<D extends Indexable>(
  demos: readonly D[] | DemonstrationIndex<D>,
  query: RetrievalQuery,
  k: number,
  options: NearestOptions = {},
): Array<D & { distance: number }> {
  return indexOf(demos, k, options).nearest(query, k, options.maxSteps);
}

/**
 * nearestDemonstrations for a worker: the same result, but the exact comparisons run in slices with
 * a yield to the event loop between them, so a policy with many long demonstrations delays only its
 * own retrieval, never the worker's other jobs, lock renewals or health checks.
 */
export async function nearestDemonstrationsYielding<D extends Indexable>(
  demos: readonly D[] | DemonstrationIndex<D>,
  query: RetrievalQuery,
  k: number,
  options: NearestOptions = {},
): Promise<Array<D & { distance: number }>> {
  return indexOf(demos, k, options).nearestYielding(query, k, options.maxSteps);
}

function indexOf<D extends Indexable>(demos: readonly D[] | DemonstrationIndex<D>, k: number, options: NearestOptions): DemonstrationIndex<D> {
  const maxChars = options.maxChars ?? (demos instanceof DemonstrationIndex ? demos.maxChars : DEFAULT_MAX_CHARS);
  checkRetrievalArgs(k, maxChars);
  if (demos instanceof DemonstrationIndex) {
    if (demos.maxChars !== maxChars) throw new RangeError(`the index caps texts at ${demos.maxChars} chars, not ${maxChars}`);
    return demos;
  }
  return DemonstrationIndex.build(k === 0 ? [] : demos, maxChars);
}
