import { afterAll, describe, expect, it } from 'vitest';
import { QuotaExceededError } from '@guardagent/errors';
import type { Demonstration } from '@guardagent/schemas';
import { DemonstrationStore, nearestDemonstrations } from '../src/index';
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
    const long = Array.from({ length: 400 }, (_, i) => ({ id: `l${i}`, input: 'a'.repeat(4000), output: String(i) }));
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 0);
    let ticksWhenDone = -1;
    try {
      await nearestDemonstrationsYielding(long, { input: 'b'.repeat(4000), output: '' }, 3).then(() => (ticksWhenDone = ticks));
    } finally {
      clearInterval(ticker);
    }
    // 400 comparisons in slices of 16: the event loop turned between slices and the timer ran.
    expect(ticksWhenDone).toBeGreaterThan(0);
  });
});
