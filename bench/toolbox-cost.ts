/**
 * Why the Mind2Web-SC program costs more sandboxed than as plain JavaScript (docs/performance.md,
 * "Today's numbers"): µs per run, median and p90 over the bundled sample jobs, one process.
 * - plain JS, hot: the program as a host function over the toolbox, runs back to back;
 * - plain JS after touching N MB between runs (what another heap does to the toolbox's caches);
 * - sandboxed (in-process isolate) with the real toolbox, and with its answers replayed
 *   (recorded once, looked up by arguments): the isolate's own share;
 * - with `ioredis` loaded first (`--ioredis`): its `class ... extends String` stops V8 inlining
 *   `charCodeAt` in loops that call it on a string.
 * Usage: node --no-node-snapshot --import tsx bench/toolbox-cost.ts [--ioredis] [touchMb=4,32]
 */
import { SandboxPool, type SandboxToolboxFunction } from '@guardagent/sandbox';
import { createToolbox } from '@guardagent/toolbox';
import { m2wWorkload } from './lib/m2w-jobs';
import { quantile, round } from './lib/stats';

const args = process.argv.slice(2);
if (args.includes('--ioredis')) await import('ioredis');
const touchMbs = (args.find((a) => /^\d+(,\d+)*$/.test(a)) ?? '4,32').split(',').map(Number);

const workload = await m2wWorkload();
const code = workload.policy.program;
if (!code) throw new Error('the mind2web-sc policy has no program');
const toolbox = createToolbox(workload.policy.toolbox);
const RUNS = 3000;
const WARM = 1000;

const line = (label: string, us: number[]) => console.log(`${label.padEnd(44)} p50 ${round(quantile(us, 0.5), 1)} µs, p90 ${round(quantile(us, 0.9), 1)} µs`);

async function plain(touchMb: number): Promise<number[]> {
  const run = new Function(...toolbox.map((f) => f.name), 'input', 'output', 'context', `return (async () => {\n${code}\n})();`) as (...a: unknown[]) => Promise<unknown>;
  const fns = toolbox.map((f) => f.fn);
  const junk = new Float64Array((touchMb * 1024 * 1024) / 8);
  const us: number[] = [];
  for (let i = 0; i < WARM + RUNS; i++) {
    const job = workload.jobs[i % workload.jobs.length]!;
    for (let k = 0; k < junk.length; k += 8) junk[k]! += 1; // one write per 64-byte cache line
    const started = process.hrtime.bigint();
    await run(...fns, job.input, job.output, {});
    if (i >= WARM) us.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  return us;
}

async function sandboxed(pool: SandboxPool, box: SandboxToolboxFunction[]): Promise<number[]> {
  const us: number[] = [];
  for (let i = 0; i < WARM + RUNS; i++) {
    const job = workload.jobs[i % workload.jobs.length]!;
    const result = await pool.run({ code: code!, input: job.input, output: job.output, context: {}, toolbox: box, reuse: 'program' });
    if (!result.ok) throw new Error(`run failed: ${result.error.kind}: ${result.error.message}`);
    if (i >= WARM) us.push(result.durationUs);
  }
  return us;
}

const answers = new Map<string, unknown>();
const recording = toolbox.map((f) => ({
  ...f,
  fn: (...a: unknown[]) => {
    const value = (f.fn as (...x: unknown[]) => unknown)(...a);
    answers.set(f.name + JSON.stringify(a), value);
    return value;
  },
}));
const replayed = toolbox.map((f) => ({ ...f, fn: (...a: unknown[]) => answers.get(f.name + JSON.stringify(a)) }));

const pool = new SandboxPool({ size: 1 });
try {
  console.log(`ioredis loaded: ${args.includes('--ioredis')}`);
  line('plain JS, hot', await plain(0));
  for (const mb of touchMbs) line(`plain JS, ${mb} MB touched between runs`, await plain(mb));
  await sandboxed(pool, recording);
  line('sandboxed, real toolbox', await sandboxed(pool, toolbox));
  line('sandboxed, toolbox answers replayed', await sandboxed(pool, replayed));
} finally {
  await pool.close();
}
