import { describe, expect, it } from 'vitest';
import { SandboxPool } from '../src/index';
import { request, verdictOf } from './run-helpers';

// Isolates are pooled per memory size. Policies choose `limits.memoryMb`, so without snapping and
// freeing, every distinct value kept a group of isolates for ever (six policies: 150 MB → 3.3 GB).

describe('isolate groups per memory size', () => {
  it('are few however many sizes are asked for, and idle ones are freed', async () => {
    let now = 1_000_000;
    const pool = new SandboxPool({ size: 1, idleGroupMs: 60_000, now: () => now });
    try {
      const code = 'return { deny: false, reasons: [] };';
      for (let memoryMb = 20; memoryMb <= 300; memoryMb += 7) {
        verdictOf(await pool.run(request(code, { limits: { memoryMb } })));
      }
      // 20..300 MB snaps to 32, 64 (the default), 128, 256 and 512: five groups, not 41.
      expect(pool.stats().groups).toBe(5);
      expect(pool.stats().isolates).toBe(5);

      now += 30_000;
      verdictOf(await pool.run(request(code, { limits: { memoryMb: 128 } })));
      expect(pool.stats().groups).toBe(5);
      now += 45_000;
      // 75 s after their last run the 32, 256 and 512 MB groups go; 128 ran 45 s ago; the default stays.
      verdictOf(await pool.run(request(code)));
      expect(pool.stats().groups).toBe(2);
      expect(pool.stats().isolates).toBe(2);
      now += 120_000;
      verdictOf(await pool.run(request(code)));
      expect(pool.stats()).toMatchObject({ groups: 1, isolates: 1 });
      // A group comes back when it is needed again.
      verdictOf(await pool.run(request(code, { limits: { memoryMb: 200 } })));
      expect(pool.stats().groups).toBe(2);
    } finally {
      await pool.close();
    }
  });
});
