import { afterAll, describe, expect, it } from 'vitest';
import { QuotaExceededError } from '@guardagent/errors';
import type { Demonstration } from '@guardagent/schemas';
import { DEFAULT_MAX_CHARS, DemonstrationIndex, DemonstrationStore, nearestDemonstrations } from '../src/index';
import { nearestDemonstrationsYielding } from '../src/nearest-demonstrations';
import { redisFixture } from './redis-fixture';

const fixture = redisFixture('memory-bounded');
afterAll(() => fixture.cleanup());

const demo = (n: number): Demonstration => ({ input: `case ${n} ${'x'.repeat(n % 7)}`, output: `out ${n}`, plan: `plan ${n}`, code: 'return { deny: false };' });

describe('demonstrations per policy are capped', () => {
  const store = new DemonstrationStore({ redis: fixture.redis, prefix: fixture.prefix, maxDemonstrations: 5 });

  it('add past the cap fails with QUOTA_EXCEEDED and writes nothing; re-adding a stored one still works', async () => {
    for (let i = 0; i < 5; i++) await store.add('acme', 'capped', demo(i));
    await expect(store.add('acme', 'capped', demo(99))).rejects.toBeInstanceOf(QuotaExceededError);
    expect(await store.count('acme', 'capped')).toBe(5);
    expect((await store.add('acme', 'capped', demo(2))).input).toBe(demo(2).input);
    // Another policy (and tenant) has its own room.
    expect((await store.add('acme', 'other', demo(99))).input).toBe(demo(99).input);
  });

  it('a seed that would pass the cap writes nothing; replacing within the cap works', async () => {
    const seeds = Array.from({ length: 6 }, (_, i) => demo(100 + i));
    await expect(store.seed('acme', 'seeded', seeds)).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED' });
    expect(await store.count('acme', 'seeded')).toBe(0);
    expect((await store.seed('acme', 'seeded', seeds.slice(0, 5))).added).toBe(5);
    expect((await store.seed('acme', 'seeded', seeds.slice(1, 6), { replace: true })).removed).toBe(1);
    expect(await store.count('acme', 'seeded')).toBe(5);
  });
});

describe('retrieval yields to the event loop', () => {
  const demos = Array.from({ length: 200 }, (_, i) => ({ id: `d${i}`, input: `input ${i} ${'y'.repeat(i)}`, output: `output ${i}` }));

  it('returns exactly what the synchronous search returns', async () => {
    const query = { input: 'input 57 yyyy', output: 'output 57' };
    expect(await nearestDemonstrationsYielding(demos, query, 7)).toEqual(nearestDemonstrations(demos, query, 7));
  });

  it('lets other callbacks run while it compares (a timer fires before it finishes)', async () => {
    // k = 100 of 400: at least 100 exact comparisons, in slices of 16.
    const long = Array.from({ length: 400 }, (_, i) => ({ id: `l${i}`, input: 'a'.repeat(4000), output: String(i) }));
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 0);
    let ticksWhenDone = -1;
    try {
      await nearestDemonstrationsYielding(long, { input: 'b'.repeat(4000), output: '' }, 100).then(() => (ticksWhenDone = ticks));
    } finally {
      clearInterval(ticker);
    }
    expect(ticksWhenDone).toBeGreaterThan(0);
  });
});

describe('retrieval over many long demonstrations is exact (issue 39: the index replaced the two-stage search)', () => {
  // Deterministic pseudo-random text (no Math.random: the same demonstrations on every run).
  let seed = 7;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const text = (n: number) => Array.from({ length: n }, () => 'abcdefghij klmnop'[Math.floor(rand() * 17)]).join('');
  const query = { input: text(3000), output: text(2000) };
  const mutate = (s: string, edits: number) => {
    const chars = [...s];
    for (let e = 0; e < edits; e++) chars[Math.floor(rand() * chars.length)] = 'z';
    return chars.join('');
  };
  // 300 unrelated long demonstrations, and three near copies of the query (5, 40 and 200 characters changed).
  const far = Array.from({ length: 300 }, (_, i) => ({ id: `far-${String(i).padStart(3, '0')}`, input: text(3000), output: text(2000) }));
  const near = [5, 40, 200].map((edits, i) => ({ id: `near-${i}`, input: mutate(query.input, edits), output: query.output }));
  const demos = [...far.slice(0, 150), ...near, ...far.slice(150)];

  it('finds the same nearest as comparing every demonstration in full', async () => {
    const unbounded = { maxSteps: Number.POSITIVE_INFINITY };
    const full = nearestDemonstrations(demos, query, 303, unbounded).slice(0, 3);
    const nearest = nearestDemonstrations(demos, query, 3, unbounded);
    expect(nearest.map((d) => d.id)).toEqual(['near-0', 'near-1', 'near-2']);
    expect(nearest.map((d) => [d.id, d.distance])).toEqual(full.map((d) => [d.id, d.distance]));
    expect(await nearestDemonstrationsYielding(demos, query, 3, unbounded)).toEqual(nearest);
    // Within the default budget the two nearest (5 and 40 characters changed) are found, and they are exact.
    expect(nearestDemonstrations(demos, query, 2)).toEqual(nearest.slice(0, 2));
    expect(DemonstrationIndex.build(demos, DEFAULT_MAX_CHARS).searchSync(query, 2).exact).toBe(true);
  });

  it('finds a demonstration near in full even when its head and tail are far (the old first stage missed it)', () => {
    const q = `${query.input}\n${query.output}`;
    const disguised = { id: 'disguised', input: `${'#'.repeat(128)}${q.slice(128, 3000)}`, output: `${query.output.slice(0, -128)}${'#'.repeat(128)}` };
    const withDisguised = [...far, disguised];
    const unbounded = { maxSteps: Number.POSITIVE_INFINITY };
    expect(nearestDemonstrations(withDisguised, query, 1, unbounded)[0]!.id).toBe('disguised');
    expect(nearestDemonstrations(withDisguised, query, 1, unbounded)).toEqual(nearestDemonstrations(withDisguised, query, 301, unbounded).slice(0, 1));
    // Uniform random texts are the bounds' worst case (equal histograms): the default budget runs out
    // before the disguised one is reached, and the search says so.
    const index = DemonstrationIndex.build(withDisguised, DEFAULT_MAX_CHARS);
    expect(index.searchSync(query, 1).exact).toBe(false);
    expect(index.searchSync(query, 1, Number.POSITIVE_INFINITY)).toMatchObject({ exact: true, nearest: [{ id: 'disguised' }] });
  });
});
