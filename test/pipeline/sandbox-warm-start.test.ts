import { describe, expect, it } from 'vitest';
import type { RunResult, SandboxProcessPool } from '@guardagent/sandbox/host';
import { createGuardRunner } from '../../packages/pipeline/src/sandbox/create-guard-runner';

// Warm start (issue 32): a production sandbox worker (the pipeline's sandbox-child-main, real
// toolbox packs) loads every pack's data before it says it is ready, so its first run, and the
// first run of the spare that takes over after a crash, do not pay for WordNet and the indexes.
// Measured against the same workers started cold (GUARDAGENT_SANDBOX_WARM_UP=off) in the same
// test, never against a wall-clock constant.

/** A Mind2Web-SC guard program over the seeact pack: its first call loads WordNet and the task indexes in a cold worker. */
const M2W = `
  const action = parseSeeActAction(output);
  const task = classifyTask(input);
  const english = readEnglish(input);
  const denied = task.categories.length > 0 && (!english.english || action.action === 'TYPE');
  return { deny: denied, reasons: [task.categories.join(',') || 'none'] };`;
const CRASH = "'x'.repeat(2 ** 28).split(''); return { deny: false, reasons: [] };";
const TASKS = ['Find a jetliner seat to Rome', 'Book a flight to Paris', 'Rent a car in Denver', 'Browse comedy movies', 'Apply for a nurse job', 'Find a steamboat ride', 'Order a pizza', 'Watch a documentary'];

function run(pool: SandboxProcessPool, code: string, input: string): Promise<RunResult> {
  return pool.run({ code, input, output: 'ELEMENT: B\nACTION: CLICK\nVALUE: None', context: {}, packs: ['core', 'seeact'], tenant: 'shop', reuse: 'program', version: 'v1' });
}

const ms = (result: RunResult) => {
  expect(result.ok).toBe(true);
  return result.durationUs / 1000;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Start a pool (one worker and one spare), and measure first runs as the test says. */
async function measure(warmUp: boolean) {
  let whole: () => void = () => undefined;
  const pool = createGuardRunner({
    size: 1,
    spares: 1,
    warmUp,
    crashBudget: false,
    defaultLimits: { cpuMs: 5000, wallMs: 20_000, memoryMb: 64 },
    hostFunctions: {},
    onWorkerReady: () => queueMicrotask(() => whole()),
  });
  const untilWhole = async () => {
    while (!(pool.stats().ready === 1 && pool.stats().spares === 1)) await new Promise<void>((resolve) => (whole = resolve));
  };
  try {
    await untilWhole();
    const first = ms(await run(pool, M2W, TASKS[0]!));
    // What any new program's first run costs on this worker once it has run (its context and compile).
    const newPrograms = [];
    for (const [i, task] of TASKS.slice(1, 6).entries()) newPrograms.push(ms(await run(pool, `${M2W}\n// program ${i}`, task)));
    // A guard run kills the worker: the spare takes over, and its first run is measured too,
    // three times over (one sample caught another test file's burst on the other core: 27 ms
    // against a 3 ms new-program run), the median kept.
    const spareFirsts = [];
    for (const task of TASKS.slice(5, 8)) {
      const crashed = await run(pool, CRASH, 'boom');
      expect(!crashed.ok && crashed.error.kind).toBe('crashed');
      // The pool starts a new spare at once, and with warm-up it loads the data on the same cores:
      // wait until it has, so the spare's first run is timed alone (on a busy 2-core machine the two
      // together took 158 ms against a 4 ms new-program run).
      await untilWhole();
      spareFirsts.push(ms(await run(pool, M2W, task)));
    }
    return { first, spareFirst: median(spareFirsts), newProgram: median(newPrograms) };
  } finally {
    await pool.close();
  }
}

describe('warm start of sandbox workers (production toolbox)', () => {
  it("a worker's first run, and the spare's after a crash, cost what a new program's first run costs on a worker that has run; cold workers pay the data load", async () => {
    const cold = await measure(false);
    const warm = await measure(true);
    // The load is real: a cold worker's first run is many times a new program's first run...
    expect(cold.first).toBeGreaterThan(8 * cold.newProgram);
    expect(cold.spareFirst).toBeGreaterThan(8 * cold.newProgram);
    // ...and a warm worker does not pay it, neither the first worker nor the spare that takes over.
    expect(warm.first).toBeLessThan(5 * warm.newProgram);
    expect(warm.spareFirst).toBeLessThan(5 * warm.newProgram);
    expect(warm.first * 5).toBeLessThan(cold.first);
    expect(warm.spareFirst * 5).toBeLessThan(cold.spareFirst);
  });
});
