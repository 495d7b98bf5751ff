import { distance } from 'fastest-levenshtein';
import { describe, expect, it } from 'vitest';
import { DemonstrationIndex, capText, nearestDemonstrations, retrievalText } from '../src/index';
import { editDistance, editDistanceWithin } from '../src/edit-distance-within';
import { nearestDemonstrationsYielding } from '../src/nearest-demonstrations';

type Demo = { id: string; input: string; output: string };

/** The reference: every demonstration compared in full, sorted by distance then id (code-unit order). */
function bruteForce(demos: readonly Demo[], query: { input: string; output: string }, k: number, maxChars: number) {
  const q = capText(retrievalText(query), maxChars);
  return demos
    .map((d) => ({ id: d.id, distance: distance(q, capText(retrievalText(d), maxChars)) }))
    .sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, k);
}

function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const ALPHABETS = ['ab', 'abc \n', 'abcdefghijklmnopqrstuvwxyz ,.\n0123456789', 'aé€\u{1F600}\u{1F601}b', 'AZaz09[]{}":,'];

function randomCase(seed: number) {
  const rand = rng(seed);
  const alphabet = [...ALPHABETS[seed % ALPHABETS.length]!];
  const pick = (n: number) => Array.from({ length: n }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
  const maxChars = [8, 40, 120, 4000][Math.floor(rand() * 4)]!;
  const base = pick(Math.floor(rand() * 150));
  // Near copies of one base (as real demonstrations are), unrelated texts, empty ones, long ones past maxChars.
  const text = () => {
    const kind = rand();
    if (kind < 0.1) return '';
    if (kind < 0.5) {
      const chars = [...base];
      for (let e = Math.floor(rand() * 8); e > 0; e--) {
        const at = Math.floor(rand() * (chars.length + 1));
        const op = rand();
        if (op < 0.33) chars.splice(at, 1);
        else if (op < 0.66) chars.splice(at, 0, pick(1));
        else chars[at] = pick(1);
      }
      return chars.join('');
    }
    return pick(Math.floor(rand() * (rand() < 0.1 ? 600 : 80)));
  };
  const n = Math.floor(rand() * 120);
  // Ids from a small set sometimes repeat: equal ids must keep list order, as the scan's stable sort does.
  const ids = rand() < 0.2 ? 10 : 1_000_000;
  const demos = Array.from({ length: n }, () => ({ id: `d${Math.floor(rand() * ids)}`, input: text(), output: text() }));
  const query = { input: text(), output: text() };
  return { demos, query, maxChars, rand };
}

describe('DemonstrationIndex', () => {
  it('returns exactly the brute-force scan on random data (seeds, sizes, alphabets, k from 0 past n, maxChars)', async () => {
    let compared = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const { demos, query, maxChars, rand } = randomCase(seed);
      const index = DemonstrationIndex.build(demos, maxChars);
      for (const k of [0, 1, 2, 3, Math.floor(rand() * (demos.length + 3)), demos.length, demos.length + 5]) {
        const expected = bruteForce(demos, query, k, maxChars);
        const got = index.nearest(query, k);
        expect(got.map((d) => ({ id: d.id, distance: d.distance })), `seed ${seed} k ${k}`).toEqual(expected);
        compared += expected.length;
      }
      const k = 1 + Math.floor(rand() * 5);
      expect((await index.nearestYielding(query, k)).map((d) => [d.id, d.distance])).toEqual(bruteForce(demos, query, k, maxChars).map((d) => [d.id, d.distance]));
      // The demonstrations come back whole, with their distance.
      for (const d of index.nearest(query, 3)) expect(demos).toContainEqual({ id: d.id, input: d.input, output: d.output });
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it('queries equal to a demonstration find it at distance 0', () => {
    const { demos, maxChars } = randomCase(7);
    const index = DemonstrationIndex.build(demos, maxChars);
    for (const d of demos.slice(0, 20)) {
      const [hit] = index.nearest(d, 1);
      expect(hit!.distance).toBe(0);
      expect(hit).toEqual({ ...bruteForce(demos, d, 1, maxChars)[0]!, input: hit!.input, output: hit!.output });
    }
  });

  it('all-identical demonstrations: k nearest are the k first ids, and k past n returns all', () => {
    const demos = Array.from({ length: 500 }, (_, i) => ({ id: `same-${String(499 - i).padStart(3, '0')}`, input: 'x'.repeat(300), output: 'y' }));
    const index = DemonstrationIndex.build(demos, 4000);
    const got = index.nearest({ input: 'x'.repeat(290), output: 'y' }, 3);
    expect(got.map((d) => [d.id, d.distance])).toEqual([['same-000', 10], ['same-001', 10], ['same-002', 10]]);
    expect(index.nearest({ input: '', output: '' }, 600)).toHaveLength(500);
  });

  it('huge texts are bounded by maxChars: distances never exceed it and equal the scan on capped texts', () => {
    const rand = rng(99);
    const big = (c: string) => Array.from({ length: 200_000 }, () => (rand() < 0.5 ? c : 'q')).join('');
    const demos = ['a', 'b', 'c', 'd'].map((c) => ({ id: c, input: big(c), output: big(c) }));
    const query = { input: big('a'), output: big('b') };
    const got = nearestDemonstrations(demos, query, 4, { maxChars: 1000 });
    for (const d of got) expect(d.distance).toBeLessThanOrEqual(1000);
    expect(got.map((d) => ({ id: d.id, distance: d.distance }))).toEqual(bruteForce(demos, query, 4, 1000));
  });

  it('the yielding search lets the event loop turn between slices of exact comparisons', async () => {
    // Permutations of one text: histograms equal, so every demonstration is compared in full.
    const rand = rng(5);
    const letters = [...'abcdefghij'.repeat(30)];
    const demos = Array.from({ length: 200 }, (_, i) => ({ id: `p${i}`, input: [...letters].sort(() => rand() - 0.5).join(''), output: '' }));
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 0);
    let ticksWhenDone = -1;
    try {
      const got = await nearestDemonstrationsYielding(demos, { input: letters.join(''), output: '' }, 100);
      ticksWhenDone = ticks;
      expect(got).toHaveLength(100);
    } finally {
      clearInterval(ticker);
    }
    expect(ticksWhenDone).toBeGreaterThan(0);
  });

  it('a search past maxSteps stops, says it is not exact, and returns the nearest among those it compared', () => {
    // Permutations of one text: equal histograms, so the bounds prune little.
    const rand = rng(8);
    const letters = [...'abcdefghij'.repeat(20)];
    const demos = Array.from({ length: 60 }, (_, i) => ({ id: `p${String(i).padStart(2, '0')}`, input: [...letters].sort(() => rand() - 0.5).join(''), output: '' }));
    const query = { input: letters.join(''), output: '' };
    const index = DemonstrationIndex.build(demos, 4000);
    const unbounded = index.searchSync(query, 2, Number.POSITIVE_INFINITY);
    expect(unbounded.exact).toBe(true);
    expect(unbounded.nearest.map((d) => [d.id, d.distance])).toEqual(bruteForce(demos, query, 2, 4000).map((d) => [d.id, d.distance]));
    const cut = index.searchSync(query, 2, 0);
    // The first k are always compared; the budget then stops the search.
    expect(cut.exact).toBe(false);
    expect(cut.nearest).toHaveLength(2);
    expect(cut.steps).toBeLessThan(unbounded.steps);
    expect(nearestDemonstrations(demos, query, 2, { maxSteps: Number.POSITIVE_INFINITY })).toEqual(unbounded.nearest);
    expect(() => index.searchSync(query, 2, Number.NaN)).toThrow(RangeError);
  });

  it('a prebuilt index is accepted by nearestDemonstrations, but only with its own maxChars', () => {
    const { demos, query } = randomCase(3);
    const index = DemonstrationIndex.build(demos, 120);
    expect(nearestDemonstrations(index, query, 2)).toEqual(index.nearest(query, 2));
    expect(() => nearestDemonstrations(index, query, 2, { maxChars: 50 })).toThrow(RangeError);
  });
});

describe('editDistanceWithin', () => {
  it('is exact within the limit and above it otherwise; editDistance is exact', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const { demos } = randomCase(seed);
      for (let j = 0; j + 1 < demos.length && j < 6; j++) {
        const a = retrievalText(demos[j]!);
        const b = retrievalText(demos[j + 1]!);
        const d = distance(a, b);
        expect(editDistance(a, b)).toBe(d);
        expect(editDistance(b, a)).toBe(d);
        for (const limit of [-1, 0, 1, d - 1, d, d + 1, Math.floor(d / 2), 3 * d + 5]) {
          const got = editDistanceWithin(a, b, limit);
          if (d <= limit) expect(got, `${seed} ${limit}`).toBe(d);
          else expect(got, `${seed} ${limit}`).toBeGreaterThan(limit);
        }
      }
    }
  });

  it('is exact on long near copies (many 32-row blocks, narrow and wide bands)', () => {
    const rand = rng(11);
    for (let round = 0; round < 60; round++) {
      const alphabet = round % 2 === 0 ? 'ab' : 'abcdefghij klmnopqrstuvwxyz';
      const a = Array.from({ length: 200 + Math.floor(rand() * 2000) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
      const chars = [...a];
      for (let e = Math.floor(rand() * 300); e > 0; e--) {
        const at = Math.floor(rand() * chars.length);
        const op = rand();
        if (op < 0.33) chars.splice(at, 1);
        else if (op < 0.66) chars.splice(at, 0, 'x');
        else chars[at] = 'y';
      }
      const b = chars.join('');
      const d = distance(a, b);
      expect(editDistance(a, b)).toBe(d);
      for (const limit of [0, d - 7, d - 1, d, d + 1, d + 40, Math.floor(d / 3)]) {
        const got = editDistanceWithin(a, b, limit);
        if (d <= limit) expect(got).toBe(d);
        else expect(got).toBeGreaterThan(limit);
      }
    }
  });

  it('is exact on many short strings over small alphabets (paths along row 0, blocks dropped from the top)', () => {
    expect(editDistanceWithin('a', 'bab', 2)).toBe(2);
    const rand = rng(3);
    for (let t = 0; t < 20_000; t++) {
      const alphabet = t % 2 ? 'ab' : 'abc';
      const pick = (n: number) => Array.from({ length: n }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
      const a = pick(Math.floor(rand() * (t % 3 ? 12 : 90)));
      const b = pick(Math.floor(rand() * (t % 3 ? 12 : 90)));
      const d = distance(a, b);
      for (const limit of [d - 1, d, d + 1, d + 5]) {
        const got = editDistanceWithin(a, b, limit);
        if (d <= limit) expect(got).toBe(d);
        else expect(got).toBeGreaterThan(limit);
      }
    }
  });
});
