/**
 * Levenshtein distance (UTF-16 code units, as fastest-levenshtein counts) computed only as far as it
 * matters: `editDistanceWithin(a, b, limit)` is the exact distance when it is ≤ limit and some
 * number > limit otherwise.
 *
 * 1. The common prefix and suffix are dropped: they never change the distance.
 * 2. Myers' bit-parallel algorithm (G. Myers, "A fast bit-vector algorithm for approximate string
 *    matching based on dynamic programming", J. ACM 46, 1999), 32 rows of the matrix per machine
 *    word, in the block form of Edlib (Šošić & Šikić, Bioinformatics 33, 2017).
 * 3. Restricted to Ukkonen's band (E. Ukkonen, "Algorithms for approximate string matching",
 *    Information and Control 64, 1985): a path of cost ≤ limit through cell (i, j) needs
 *    |j − i| + |(m − j) − (n − i)| ≤ limit, so each column computes only the blocks of rows that
 *    cross that band; a top block whose every cell (plus the length difference still ahead of it)
 *    exceeds the limit is dropped, and the search stops once that holds for all. Cells outside
 *    the band enter as over-estimates (vertical +1 steps, a +1 step above the top block), which can
 *    never make a path of cost ≤ limit look longer. Cost about m · (limit / 32 + 2) word steps.
 */
export function editDistanceWithin(a: string, b: string, limit: number): number {
  if (limit < 0) return limit + 1;
  let start = 0;
  let endA = a.length;
  let endB = b.length;
  while (start < endA && start < endB && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  while (endA > start && endB > start && a.charCodeAt(endA - 1) === b.charCodeAt(endB - 1)) {
    endA--;
    endB--;
  }
  let short = a;
  let long = b;
  let n = endA - start;
  let m = endB - start;
  if (n > m) [short, long, n, m] = [b, a, m, n];
  if (m - n > limit) return limit + 1;
  if (n === 0) return m;
  return bandedMyers(short, long, start, n, m, Math.min(limit, m));
}

/** The exact distance (editDistanceWithin with no limit: the band is the whole matrix). */
export function editDistance(a: string, b: string): number {
  return editDistanceWithin(a, b, Number.MAX_SAFE_INTEGER);
}

/** Word steps (one 32-row block of one column each) the bit-parallel loop has run in this process. */
let stepsRun = 0;

/** Word steps run so far: the difference across a call is what that call cost. */
export function wordStepsRun(): number {
  return stepsRun;
}

const HIGH_BIT = 1 << 31;
/** Slot of each code unit of the current pattern (0: not in it); reset after each call. */
const slotOf = new Int32Array(65536);
let peq = new Int32Array(0);
let pv = new Int32Array(0);
let mv = new Int32Array(0);
let score = new Int32Array(0);

/** Rows: short[from, from + n); columns: long[from, from + m); n ≤ m, limit ≤ m. */
function bandedMyers(short: string, long: string, from: number, n: number, m: number, limit: number): number {
  const blocks = (n + 31) >> 5;
  // Pattern masks: peq[slot · blocks + block] has bit r set when row 32·block + r holds that character.
  let slots = 1;
  for (let i = 0; i < n; i++) {
    const c = short.charCodeAt(from + i);
    if (slotOf[c] === 0) slotOf[c] = slots++;
  }
  if (peq.length < slots * blocks) peq = new Int32Array(Math.max(slots * blocks, 2 * peq.length));
  peq.fill(0, 0, slots * blocks);
  for (let i = 0; i < n; i++) peq[slotOf[short.charCodeAt(from + i)]! * blocks + (i >> 5)]! |= 1 << (i & 31);
  if (pv.length < blocks) {
    pv = new Int32Array(2 * blocks);
    mv = new Int32Array(2 * blocks);
    score = new Int32Array(2 * blocks);
  }
  try {
    return columns(long, from, m, n, blocks, limit, peq, pv, mv, score);
  } finally {
    for (let i = 0; i < n; i++) slotOf[short.charCodeAt(from + i)] = 0;
  }
}

/** The column loop, with the buffers as locals (module-level bindings cost a load on every access). */
function columns(
  long: string,
  from: number,
  m: number,
  n: number,
  blocks: number,
  limit: number,
  peq: Int32Array,
  pv: Int32Array,
  mv: Int32Array,
  score: Int32Array,
): number {
  const slots = slotOf;
  {
    const gap = m - n;
    const slack = (limit - gap) >> 1;
    const lastBit = 1 << ((n - 1) & 31);
    const lastRows = n - 32 * (blocks - 1);
    // Column 0: D[i][0] = i, every vertical step +1. Score of a block: D at its last row.
    let first = 0;
    let last = Math.min(blocks - 1, (Math.max(1, Math.min(n, slack)) - 1) >> 5);
    for (let k = 0; k <= last; k++) {
      pv[k] = -1;
      mv[k] = 0;
      score[k] = Math.min(32 * (k + 1), n);
    }
    for (let j = 1; j <= m; j++) {
      const newLast = Math.min(blocks - 1, (Math.max(1, Math.min(n, j + slack)) - 1) >> 5);
      while (last < newLast) {
        // A block entering the band: over-estimated as the block above plus vertical +1 steps.
        last++;
        pv[last] = -1;
        mv[last] = 0;
        score[last] = score[last - 1]! + (last === blocks - 1 ? lastRows : 32);
      }
      first = Math.max(first, (Math.max(1, j - gap - slack) - 1) >> 5);
      const column = slots[long.charCodeAt(from + j - 1)]! * blocks;
      let hin = 1;
      let newFirst = first;
      // Cell (i, j) still has |c + i| characters of length difference ahead of it.
      const c = m - j - n;
      // Row 0 (D[0][j] = j) is in no block: a path may still run along it while the first block is 0.
      let lowest = first === 0 ? j + Math.abs(c) : Number.MAX_SAFE_INTEGER;
      stepsRun += last - first + 1;
      for (let k = first; k <= last; k++) {
        let eq = peq[column + k]!; // slot 0 (a character not in the pattern): no bits
        const p = pv[k]!;
        const mm = mv[k]!;
        const xv = eq | mm;
        if (hin < 0) eq |= 1;
        const xh = ((((eq & p) + p) | 0) ^ p) | eq;
        let ph = mm | ~(xh | p);
        let mh = p & xh;
        const isLast = k === blocks - 1;
        const bit = isLast ? lastBit : HIGH_BIT;
        const hout = (ph & bit) !== 0 ? 1 : (mh & bit) !== 0 ? -1 : 0;
        ph <<= 1;
        mh <<= 1;
        if (hin < 0) mh |= 1;
        else if (hin > 0) ph |= 1;
        pv[k] = mh | ~(xv | ph);
        mv[k] = ph & xv;
        const s = score[k]! + hout;
        score[k] = s;
        // Within a block neighbouring rows differ by at most 1 (D[i] ≥ s − (r1 − i)), and a path
        // through row i ends at least |c + i| later: min over the block's rows r0..r1 of the sum.
        const r0 = 32 * k + 1;
        const r1 = isLast ? n : r0 + 31;
        const bound = s - r1 + (r0 >= -c ? 2 * r0 + c : -c);
        if (bound < lowest) lowest = bound;
        // A top block that no path of cost ≤ limit can cross, with nothing viable above it, is
        // dropped: a path to its rows later would have to cross this column at or above them.
        if (k === newFirst && bound > limit && (first > 0 || j + Math.abs(c) > limit)) newFirst = k + 1;
        hin = hout;
      }
      if (lowest > limit) return limit + 1;
      first = newFirst;
    }
    const d = score[blocks - 1]!;
    return d <= limit ? d : limit + 1;
  }
}
