import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SandboxProcessPool, type ProcessRunRequest, type RunResult, type SandboxProcessPoolOptions } from '../src/index';

// Fair, warm sandbox workers (issue 32): warm spares, the crash budget and its quarantine, the
// memory bound, waits by tenant. Real worker processes (the test worker of fixtures/, whose
// warm-up loads a stand-in for the toolbox data) and real crashes.

const entry = fileURLToPath(new URL('./fixtures/test-sandbox-child.ts', import.meta.url));
const execArgv = ['--no-node-snapshot', '--import', import.meta.resolve('tsx')];

const ok = (result: RunResult) => (result.ok ? result.verdict : null);
const kind = (result: RunResult) => (result.ok ? 'ok' : result.error.kind);

function request(code: string, extra: Partial<ProcessRunRequest> = {}): ProcessRunRequest {
  return { code, input: 'in', output: 'out', context: {}, packs: ['core'], tenant: 'acme', reuse: 'program', ...extra };
}

const CRASH = 'abortWorker(); return { deny: false, reasons: [] };';
const HANG = 'deadlockWorker(); return { deny: false, reasons: [] };';
const BENIGN = 'return { deny: false, reasons: [String(workerPid()), String(isWarm())] };';

/** Wait for a condition this process cannot be told of (a process's exit as /proc shows it). */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The state letter of a process (R, S, Z...), from /proc. */
function processState(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
  } catch {
    return undefined;
  }
}

/** A pool, and a promise for the moment it is whole: `size` ready workers and every spare ready. */
function startPool(options: Partial<SandboxProcessPoolOptions>): { pool: SandboxProcessPool; whole: () => Promise<void> } {
  const waiters: Array<() => void> = [];
  const pool: SandboxProcessPool = new SandboxProcessPool({
    entry,
    execArgv,
    graceMs: 300,
    defaultLimits: { cpuMs: 500, wallMs: 1500 },
    ...options,
    onWorkerReady: (event) => {
      options.onWorkerReady?.(event);
      // A ready worker is the only event that makes a pool whole again.
      queueMicrotask(() => {
        for (const waiter of waiters.splice(0)) waiter();
      });
    },
  });
  const isWhole = () => {
    const stats = pool.stats();
    return stats.ready === stats.size && stats.spares === (options.spares ?? 1);
  };
  const whole = async () => {
    while (!isWhole()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { pool, whole };
}

describe('warm workers and the warm spare', () => {
  it('sends no run to a worker before its warm-up is done, and a death is taken over by the warm spare at once', async () => {
    const ready: Array<{ pid: number | undefined; warmMs: number; serving: boolean }> = [];
    const { pool, whole } = startPool({ size: 1, spares: 1, onWorkerReady: (event) => ready.push(event) });
    try {
      // Submitted before any worker is ready: it waits for the warm-up, then sees its data loaded.
      const first = await pool.run(request(BENIGN));
      expect(ok(first)?.reasons[1]).toBe('true');
      await whole();
      expect(ready).toHaveLength(2);
      expect(ready.filter((event) => !event.serving)).toHaveLength(1);
      expect(ready.every((event) => event.warmMs > 0)).toBe(true);
      const spare = ready.find((event) => !event.serving)!.pid;

      const started = pool.stats();
      expect(kind(await pool.run(request(CRASH, { tenant: 'mallory' })))).toBe('crashed');
      // The death left the pool a ready, warm worker (the spare), and a new spare warming up.
      expect(pool.stats()).toMatchObject({ ready: 1, spares: 0, unservedMs: 0 });
      expect(pool.stats().workersStarted).toBe(started.workersStarted + 1);
      const next = await pool.run(request(BENIGN));
      expect(ok(next)?.reasons).toEqual([String(spare), 'true']);
      await whole();
      expect(pool.stats().restarts).toEqual({ died: 1, hung: 0, recycled: 0 });
    } finally {
      await pool.close();
    }
  });
});

describe('the crash budget', () => {
  it('quarantines a version that kills its budget of workers, then its tenant; quarantined runs end at once without a worker; others keep running; released after the window', async () => {
    let clock = 1_000_000;
    const quarantines: string[] = [];
    const { pool, whole } = startPool({
      size: 2,
      spares: 1,
      crashBudget: { perVersion: 2, perTenant: 3, windowMs: 60_000 },
      now: () => clock,
      onQuarantine: (q) => quarantines.push(`${q.tenant}/${q.scope}/${q.version ?? '-'}/${q.crashes}`),
    });
    try {
      await whole();
      // Version v1 kills two workers (a crash and a hang count alike): its budget is spent.
      expect(kind(await pool.run(request(CRASH, { tenant: 'mallory', version: 'v1' })))).toBe('crashed');
      expect(kind(await pool.run(request(HANG, { tenant: 'mallory', version: 'v1' })))).toBe('hung');
      expect(quarantines).toEqual(['mallory/version/v1/2']);
      await whole();
      const before = pool.stats();
      const refused = await pool.run(request(BENIGN, { tenant: 'mallory', version: 'v1' }));
      expect(kind(refused)).toBe('quarantined');
      expect(!refused.ok && refused.error.message).toMatch(/killed or hung 2 sandbox workers within 60 s/);
      // Not run: no message was sent to any worker.
      expect(pool.stats().runMessages).toBe(before.runMessages);
      expect(pool.stats().quarantinedRuns).toBe(before.quarantinedRuns + 1);
      // Another version of the same tenant, and another tenant, still run.
      expect(ok(await pool.run(request(BENIGN, { tenant: 'mallory', version: 'v2' })))?.reasons[1]).toBe('true');
      expect(ok(await pool.run(request(BENIGN, { tenant: 'acme', version: 'v1' })))?.reasons[1]).toBe('true');

      // A third death from any version spends the tenant's budget: every version is refused.
      expect(kind(await pool.run(request(CRASH, { tenant: 'mallory', version: 'v3' })))).toBe('crashed');
      expect(quarantines).toEqual(['mallory/version/v1/2', 'mallory/tenant/-/3']);
      expect(kind(await pool.run(request(BENIGN, { tenant: 'mallory', version: 'v9' })))).toBe('quarantined');
      expect(ok(await pool.run(request(BENIGN, { tenant: 'acme' })))?.reasons[1]).toBe('true');
      expect(pool.stats().quarantines.map((q) => q.scope).sort()).toEqual(['tenant', 'version']);
      expect(pool.stats().quarantineTotals).toEqual(
        expect.arrayContaining([
          { tenant: 'mallory', scope: 'version', count: 1 },
          { tenant: 'mallory', scope: 'tenant', count: 1 },
        ]),
      );
      expect(pool.stats().restarts).toEqual({ died: 2, hung: 1, recycled: 0 });

      // Past the window the quarantines end: the same version runs again.
      clock += 60_001;
      await whole();
      expect(ok(await pool.run(request(BENIGN, { tenant: 'mallory', version: 'v1' })))?.reasons[1]).toBe('true');
      expect(pool.stats().quarantines).toEqual([]);
    } finally {
      await pool.close();
    }
  });

  it('ends the runs of a version that wait in the queue when its quarantine begins, and costs the pool only its budget of workers', async () => {
    const { pool, whole } = startPool({ size: 2, spares: 1, crashBudget: { perVersion: 2, perTenant: 10, windowMs: 60_000 } });
    try {
      await whole();
      const started = pool.stats();
      const results = await Promise.all(Array.from({ length: 8 }, () => pool.run(request(CRASH, { tenant: 'mallory', version: 'boom' }))));
      // The first death (all eight in one message) is charged to the version without pinning it on a
      // run; each run is retried alone, and the first retry's death spends the budget.
      expect(results.map(kind).sort()).toEqual(['crashed', 'quarantined', 'quarantined', 'quarantined', 'quarantined', 'quarantined', 'quarantined', 'quarantined']);
      expect(pool.stats().restarts.died - started.restarts.died).toBe(2);
    } finally {
      await pool.close();
    }
  });

  it('lets a tenant that killed a worker run again only once the pool is whole: its next death never finds the pool short', async () => {
    const { pool, whole } = startPool({ size: 2, spares: 1, crashBudget: { perVersion: 100, perTenant: 100, windowMs: 60_000 } });
    const shortfalls: number[] = [];
    try {
      await whole();
      for (let i = 0; i < 4; i++) {
        // Submitted at once after the last death: dispatched only when the spare's replacement is warm.
        const crash = pool.run(request(CRASH, { tenant: 'mallory', version: 'boom' }));
        const served = await pool.run(request(BENIGN, { tenant: 'acme' }));
        expect(ok(served)?.reasons[1]).toBe('true');
        expect(kind(await crash)).toBe('crashed');
        // Right after each death: every serving place has a ready worker.
        shortfalls.push(pool.stats().size - pool.stats().ready);
      }
      expect(shortfalls).toEqual([0, 0, 0, 0]);
      expect(pool.stats().unservedMs).toBe(0);
    } finally {
      await pool.close();
    }
  });
});

describe('the memory bound', () => {
  it('recycles a worker past its resident memory between runs: its runs in flight end normally, the spare takes over, the worker is killed', async () => {
    // The bound: the test worker's own size after warm-up plus 150 MB (measured, not assumed).
    const probe = startPool({ size: 1, spares: 0, maxWorkerRssMb: 0 });
    await probe.whole();
    await probe.pool.run(request(BENIGN));
    const baseMb = probe.pool.stats().rssMb[0]!;
    await probe.pool.close();
    expect(baseMb).toBeGreaterThan(0);

    const recycled: Array<{ pid: number | undefined; rssMb: number }> = [];
    const gone: Array<{ pid: number | undefined; reason: string }> = [];
    let answerHost: (value: unknown) => void = () => undefined;
    let parked: () => void = () => undefined;
    const hostCalled = new Promise<void>((resolve) => {
      parked = resolve;
    });
    const { pool, whole } = startPool({
      size: 1,
      spares: 1,
      maxWorkerRssMb: baseMb + 150,
      onWorkerRecycled: (event) => recycled.push(event),
      onWorkerGone: (event) => gone.push({ pid: event.pid, reason: event.reason }),
      hostFunctions: {
        echo: () =>
          new Promise((resolve) => {
            answerHost = resolve;
            parked();
          }),
      },
    });
    try {
      await whole();
      // A run parked on a host call holds the worker while another run there grows it past the bound.
      const inFlight = pool.run(request('const v = await askHost("x"); return { deny: false, reasons: [String(v), String(workerPid())] };', { limits: { cpuMs: 500, wallMs: 30_000 } }));
      await hostCalled;
      const grown = await pool.run(request('holdMemory(300); return { deny: false, reasons: [String(workerPid())] };', { tenant: 'globex', limits: { cpuMs: 5000, wallMs: 30_000 } }));
      expect(kind(grown)).toBe('ok');
      const grownPid = Number(ok(grown)?.reasons[0]);
      expect(recycled).toEqual([{ pid: grownPid, rssMb: expect.any(Number), maxRssMb: baseMb + 150 }]);
      expect(recycled[0]!.rssMb).toBeGreaterThan(baseMb + 150);
      // The spare serves at once; the old worker still runs what it holds.
      const next = await pool.run(request(BENIGN, { tenant: 'initech' }));
      expect(Number(ok(next)?.reasons[0])).not.toBe(grownPid);
      expect(gone).toEqual([]);
      answerHost('answered');
      expect(ok(await inFlight)?.reasons).toEqual(['answered', String(grownPid)]);
      await whole();
      expect(pool.stats().restarts).toEqual({ died: 0, hung: 0, recycled: 1 });
      expect(pool.stats().crashed).toBe(0);
      // Killed once its last run had ended, and not before.
      expect(gone).toEqual([{ pid: grownPid, reason: expect.stringMatching(/^recycled: its memory \(\d+ MB\) passed the bound/) }]);
      await until(() => !existsSync(`/proc/${grownPid}`) || processState(grownPid) === 'Z');
    } finally {
      await pool.close();
    }
  });
});

describe('waits for a worker, per tenant', () => {
  it('counts each run once, by tenant, in buckets', async () => {
    const { pool, whole } = startPool({ size: 1, spares: 0 });
    try {
      await whole();
      pool.takeWaits();
      await Promise.all([pool.run(request(BENIGN, { tenant: 'a' })), pool.run(request(BENIGN, { tenant: 'a' })), pool.run(request(BENIGN, { tenant: 'b' }))]);
      const waits = pool.takeWaits();
      expect(waits.get('a')?.count).toBe(2);
      expect(waits.get('b')?.count).toBe(1);
      expect(waits.get('a')!.buckets.reduce((sum, n) => sum + n, 0)).toBe(2);
      expect(pool.takeWaits().size).toBe(0);
    } finally {
      await pool.close();
    }
  });

  it('says how long it has had no ready worker: while starting, and after its only worker died until the next is warm', async () => {
    const { pool, whole } = startPool({ size: 1, spares: 0 });
    try {
      expect(pool.stats().ready).toBe(0);
      expect(pool.stats().unservedMs).toBeGreaterThan(0);
      await whole();
      expect(pool.stats().unservedMs).toBe(0);
      const pid = Number(ok(await pool.run(request(BENIGN)))?.reasons[0]);
      process.kill(pid, 'SIGKILL');
      await until(() => pool.stats().ready === 0);
      expect(pool.stats().unservedMs).toBeGreaterThan(0);
      await whole();
      expect(pool.stats().unservedMs).toBe(0);
    } finally {
      await pool.close();
    }
  });
});
