import { editDistance, editDistanceWithin, wordStepsRun } from './edit-distance-within';
import { capText, checkRetrievalArgs, retrievalText, type RetrievalQuery } from './retrieval-text';

type Indexable = { id: string; input: string; output: string };

/**
 * Exact k-nearest demonstrations without comparing the query with every one.
 *
 * Distance = Levenshtein between capText(retrievalText(·), maxChars) of the query and of each
 * demonstration (UTF-16 code units); ties by id in code-unit order, so the result is exactly the
 * one-stage scan's (a plain loop of `distance` sorted by distance then id).
 *
 * It prunes with lower bounds of the edit distance, each valid, so nothing pruned could have been
 * among the k nearest:
 * - length: ed(a, b) ≥ |len(a) − len(b)|;
 * - character histogram (code units folded into HISTOGRAM_BUCKETS buckets): an edit changes one
 *   count up and/or one count down, so ed ≥ max(Σ positive differences, Σ negative differences)
 *   = (L1 + |len(a) − len(b)|) / 2, which is never below the length bound (the counting filter,
 *   e.g. Navarro, "A guided tour to approximate string matching", ACM Comput. Surv. 33, 2001, §7);
 * - 3-gram profile (hashed into GRAM_BUCKETS buckets): an edit removes at most 3 of a text's
 *   3-grams and adds at most 3 (Ukkonen, "Approximate string-matching with q-grams and maximal
 *   matches", TCS 92, 1992), so ed ≥ ⌈max(Σ positive, Σ negative) / 3⌉. Folding grams or characters
 *   into buckets only merges counts, which can only lower the sums: the bounds stay valid.
 *
 * Build: the capped text's length and histogram of every demonstration (typed arrays, ~140 bytes
 * each), once per demonstration list (DemonstrationCache keeps the index with the list).
 * Query: the histogram bound of every demonstration (one typed-array pass), a counting sort by
 * (bound, id), then the demonstrations in that order while their bound can still beat the k-th best
 * so far; each is checked against its 3-gram bound, then compared by editDistanceWithin with the
 * k-th best as the limit (Ukkonen's band, stopped as soon as it cannot win). The first bound above
 * the k-th best (or equal to it with a later id) ends the search: every later one is as far.
 */
export class DemonstrationIndex<D extends Indexable> {
  private constructor(
    readonly demos: readonly D[],
    readonly maxChars: number,
    private readonly lengths: Int32Array,
    private readonly histograms: Uint16Array | Uint32Array,
    /** The same counts in COARSE_BUCKETS buckets (4 fine ones each): what the sweep over all reads. */
    private readonly coarse: Uint16Array | Uint32Array,
    /** byRank[r] = position of the demonstration whose id is r-th in code-unit order. */
    private readonly byRank: Int32Array,
    private readonly rankOf: Int32Array,
  ) {}

  static build<D extends Indexable>(demos: readonly D[], maxChars: number): DemonstrationIndex<D> {
    checkRetrievalArgs(0, maxChars);
    const n = demos.length;
    const lengths = new Int32Array(n);
    // Counts never exceed a capped text's length.
    const histograms = maxChars <= 0xffff ? new Uint16Array(n * HISTOGRAM_BUCKETS) : new Uint32Array(n * HISTOGRAM_BUCKETS);
    const coarse = maxChars <= 0xffff ? new Uint16Array(n * COARSE_BUCKETS) : new Uint32Array(n * COARSE_BUCKETS);
    for (let i = 0; i < n; i++) {
      const text = capText(retrievalText(demos[i]!), maxChars);
      lengths[i] = text.length;
      const offset = i * HISTOGRAM_BUCKETS;
      for (let c = 0; c < text.length; c++) histograms[offset + bucketOf(text.charCodeAt(c))]! += 1;
      for (let b = 0; b < HISTOGRAM_BUCKETS; b++) coarse[i * COARSE_BUCKETS + (b >> 2)]! += histograms[offset + b]!;
    }
    // Stable: equal ids keep their list order, as the scan's stable sort does.
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => {
      const x = demos[a]!.id;
      const y = demos[b]!.id;
      return x < y ? -1 : x > y ? 1 : a - b;
    });
    const byRank = Int32Array.from(order);
    const rankOf = new Int32Array(n);
    for (let r = 0; r < n; r++) rankOf[byRank[r]!] = r;
    return new DemonstrationIndex(demos, maxChars, lengths, histograms, coarse, byRank, rankOf);
  }

  get size(): number {
    return this.demos.length;
  }

  /** Bytes of the typed arrays (the demonstrations themselves are the caller's). */
  get bytes(): number {
    return this.lengths.byteLength + this.histograms.byteLength + this.coarse.byteLength + this.byRank.byteLength + this.rankOf.byteLength;
  }

  /**
   * The k nearest, nearest first, ties by id: exactly what comparing the query with every
   * demonstration returns, unless the search ran out of maxSteps (see searchSync's `exact`).
   */
  nearest(query: RetrievalQuery, k: number, maxSteps = DEFAULT_MAX_STEPS): Array<D & { distance: number }> {
    return this.searchSync(query, k, maxSteps).nearest;
  }

  /** nearest, and whether the search was exhaustive, and the word steps it spent in exact comparisons. */
  searchSync(query: RetrievalQuery, k: number, maxSteps = DEFAULT_MAX_STEPS): SearchResult<D> {
    const search = this.search(query, k, maxSteps);
    for (let step = search.next(); ; step = search.next()) if (step.done) return step.value;
  }

  /**
   * nearest for a worker: the same result, with a yield to the event loop after every
   * COMPARISONS_PER_SLICE exact comparisons, so a slow retrieval delays only itself.
   */
  async nearestYielding(query: RetrievalQuery, k: number, maxSteps = DEFAULT_MAX_STEPS): Promise<Array<D & { distance: number }>> {
    const search = this.search(query, k, maxSteps);
    for (let step = search.next(); ; step = search.next()) {
      if (step.done) return step.value.nearest;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private *search(query: RetrievalQuery, k: number, maxSteps: number): Generator<void, SearchResult<D>> {
    checkRetrievalArgs(k, this.maxChars);
    if (!(maxSteps >= 0)) throw new RangeError(`maxSteps must be a non-negative number, got ${maxSteps}`);
    const n = this.demos.length;
    if (k === 0 || n === 0) return { nearest: [], exact: true, steps: 0 };
    const queryText = capText(retrievalText(query), this.maxChars);
    const queryLength = queryText.length;
    const queryHistogram = new Int32Array(HISTOGRAM_BUCKETS);
    for (let c = 0; c < queryLength; c++) queryHistogram[bucketOf(queryText.charCodeAt(c))]! += 1;

    // Coarse histogram bound of every demonstration: the one pass over all of them.
    const queryCoarse = new Int32Array(COARSE_BUCKETS);
    for (let b = 0; b < HISTOGRAM_BUCKETS; b++) queryCoarse[b >> 2]! += queryHistogram[b]!;
    const bounds = new Int32Array(n);
    const { coarse, histograms, lengths } = this;
    let maxBound = 0;
    for (let i = 0; i < n; i++) {
      const offset = i * COARSE_BUCKETS;
      let l1 = 0;
      for (let b = 0; b < COARSE_BUCKETS; b++) l1 += Math.abs(queryCoarse[b]! - coarse[offset + b]!);
      const bound = (l1 + Math.abs(queryLength - lengths[i]!)) >> 1;
      bounds[i] = bound;
      if (bound > maxBound) maxBound = bound;
    }
    // Counting sort by (bound, id rank): visiting byRank in order keeps each bound's ids in order.
    const starts = new Int32Array(maxBound + 2);
    for (let i = 0; i < n; i++) starts[bounds[i]! + 1]! += 1;
    for (let b = 1; b <= maxBound + 1; b++) starts[b]! += starts[b - 1]!;
    const order = new Int32Array(n);
    for (let r = 0; r < n; r++) {
      const i = this.byRank[r]!;
      order[starts[bounds[i]!]!++] = i;
    }

    const grams = gramProfile(queryText);
    const scratch = new Int32Array(GRAM_BUCKETS);
    // The best so far, sorted by (distance, rank); at most k.
    const best: Array<{ i: number; d: number; r: number }> = [];
    let compared = 0;
    let steps = 0;
    let exact = true;
    for (let p = 0; p < n; p++) {
      const i = order[p]!;
      const bound = bounds[i]!;
      const r = this.rankOf[i]!;
      const full = best.length === k;
      let limit = Number.POSITIVE_INFINITY;
      if (full) {
        const worst = best[k - 1]!;
        // (bound, rank) only grow from here: nothing later can beat the k-th best.
        if (bound > worst.d || (bound === worst.d && r > worst.r)) break;
        // To enter, a later id must be strictly nearer; an earlier one may tie.
        limit = r < worst.r ? worst.d : worst.d - 1;
      }
      if (full) {
        // Out of budget (never before k are found): what is returned is the k nearest among those
        // compared, which are the ones with the lowest bounds, but no longer certainly the k nearest.
        if (steps >= maxSteps) {
          exact = false;
          break;
        }
        // The fine histogram bound (64 buckets), then the 3-gram bound, before any exact comparison.
        const offset = i * HISTOGRAM_BUCKETS;
        let l1 = 0;
        for (let b = 0; b < HISTOGRAM_BUCKETS; b++) l1 += Math.abs(queryHistogram[b]! - histograms[offset + b]!);
        steps += HISTOGRAM_BUCKETS / 4;
        if ((l1 + Math.abs(queryLength - lengths[i]!)) >> 1 > limit) continue;
      }
      const text = capText(retrievalText(this.demos[i]!), this.maxChars);
      if (full) {
        steps += (text.length + GRAM_BUCKETS) / 4;
        if (gramBound(grams, queryLength, text, scratch) > limit) continue;
      }
      // An exact comparison also builds the shorter text's bit masks.
      steps += Math.min(queryLength, text.length) / 4;
      const before = wordStepsRun();
      const d = full ? editDistanceWithin(queryText, text, limit) : editDistance(queryText, text);
      steps += wordStepsRun() - before;
      compared += 1;
      if (d <= limit) {
        let at = best.length;
        while (at > 0 && (best[at - 1]!.d > d || (best[at - 1]!.d === d && best[at - 1]!.r > r))) at--;
        best.splice(at, 0, { i, d, r });
        if (best.length > k) best.pop();
      }
      if (compared % COMPARISONS_PER_SLICE === 0) yield;
    }
    return { nearest: best.map(({ i, d }) => ({ ...this.demos[i]!, distance: d })), exact, steps };
  }
}

export interface SearchResult<D> {
  nearest: Array<D & { distance: number }>;
  /** False when the search stopped at maxSteps with demonstrations left whose bound could still beat the k-th. */
  exact: boolean;
  /**
   * Work spent, in word steps: the bit-parallel steps the exact comparisons ran (32 cells of the
   * matrix each), plus the bounds checked per demonstration visited, counted as one step per 4
   * operations.
   */
  steps: number;
}

/**
 * Work (SearchResult.steps: mostly bit-parallel word steps) after which a query stops, by default:
 * 2^24, about what the approximate two-stage search it replaced spent at most (~18M steps at 1,000
 * demonstrations), a few hundred ms on one core. A query near some demonstrations (the usual case:
 * a memory of past jobs of the same policy) needs far less and is always exact; one unlike every
 * demonstration, whose bounds prune little, may reach it at large memories, and then gets the k
 * nearest among the demonstrations with the lowest bounds, compared within the budget.
 */
const DEFAULT_MAX_STEPS = 2 ** 24;

/** Exact comparisons between two yields of nearestYielding (each is at most a few ms at DEFAULT_MAX_CHARS). */
const COMPARISONS_PER_SLICE = 16;

const HISTOGRAM_BUCKETS = 64;
const COARSE_BUCKETS = 16;
const GRAM_BUCKETS = 1024;

/**
 * Histogram bucket of a code unit: lower-case letters, digits, space and newline (most of agent
 * text) each have their own; upper-case letters, punctuation and the rest share the other 26.
 */
const ASCII_BUCKET = Uint8Array.from({ length: 128 }, (_, c) => {
  if (c >= 97 && c <= 122) return c - 97;
  if (c >= 48 && c <= 57) return 26 + c - 48;
  if (c === 32) return 36;
  if (c === 10) return 37;
  return 38 + (c % 26);
});

const bucketOf = (c: number): number => (c < 128 ? ASCII_BUCKET[c]! : 38 + ((Math.imul(c, 0x9e3779b1) >>> 0) % 26));

const gramAt = (text: string, c: number): number =>
  (Math.imul(text.charCodeAt(c), 0x9e3779b1) ^ Math.imul(text.charCodeAt(c + 1), 0x85ebca6b) ^ Math.imul(text.charCodeAt(c + 2), 0xc2b2ae35)) >>> 22;

function gramProfile(text: string): Int32Array {
  const profile = new Int32Array(GRAM_BUCKETS);
  for (let c = 0; c + 2 < text.length; c++) profile[gramAt(text, c)]! += 1;
  return profile;
}

/** ⌈max(Σ positive, Σ negative) / 3⌉ over the 3-gram profiles: a lower bound of the edit distance. */
function gramBound(queryGrams: Int32Array, queryLength: number, text: string, scratch: Int32Array): number {
  scratch.set(queryGrams);
  for (let c = 0; c + 2 < text.length; c++) scratch[gramAt(text, c)]! -= 1;
  let l1 = 0;
  for (let b = 0; b < GRAM_BUCKETS; b++) l1 += Math.abs(scratch[b]!);
  const gap = Math.abs(Math.max(0, queryLength - 2) - Math.max(0, text.length - 2));
  return Math.ceil((l1 + gap) / 2 / 3);
}
