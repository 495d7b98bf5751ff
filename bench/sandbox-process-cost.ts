import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { SandboxProcessPool } from '@guardagent/sandbox/host';
import { sandboxWorkerCommand } from '../packages/pipeline/src/sandbox/create-guard-runner';
import { m2wWorkload } from './lib/m2w-jobs';
import { descendantsCpuMs, processCpuMs } from './lib/proc-cpu';

/**
 * CPU per guard run of the Mind2Web-SC program through one sandbox worker process, as the
 * executor runs it (IPC, validation, the program and its toolbox in the worker), split into the
 * worker's CPU and this (executor-side) process's.
 * Usage: node --no-node-snapshot --import tsx bench/sandbox-process-cost.ts [runs=10000] [--profile DIR]
 * (--profile writes the worker's V8 CPU profile; read it with bench/analyze-profile.ts).
 */
const args = process.argv.slice(2);
const runs = Number(args.find((a) => /^\d+$/.test(a)) ?? 10_000);
const profileAt = args.indexOf('--profile');
const profileDir = profileAt >= 0 ? (args[profileAt + 1] ?? 'sandbox-profile') : null;

const workload = await m2wWorkload();
const code = workload.policy.program;
if (!code) throw new Error('the mind2web-sc policy has no program');
const { entry, execArgv } = sandboxWorkerCommand();
const pool = new SandboxProcessPool({
  entry,
  execArgv: [...execArgv, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])],
  size: 1,
  hostFunctions: {},
  env: { PATH: process.env.PATH ?? '' },
});
const run = async (i: number) => {
  const job = workload.jobs[i % workload.jobs.length];
  const result = await pool.run({ code, input: job.input, output: job.output, context: {}, packs: [...workload.policy.toolbox], tenant: 'bench', reuse: 'program' });
  if (!result.ok) throw new Error(`run failed: ${result.error.kind}: ${result.error.message}`);
};
for (let i = 0; i < 500; i++) await run(i);
const workerBefore = descendantsCpuMs(process.pid) ?? Number.NaN;
const selfBefore = processCpuMs(process.pid) ?? Number.NaN;
const started = performance.now();
let next = 0;
// 16 runs in flight, as an executor with a chunk to decide keeps its pool busy.
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < runs) await run(next++);
  }),
);
const seconds = (performance.now() - started) / 1000;
const workerUs = (((descendantsCpuMs(process.pid) ?? Number.NaN) - workerBefore) * 1000) / runs;
const selfUs = (((processCpuMs(process.pid) ?? Number.NaN) - selfBefore) * 1000) / runs;
process.stdout.write(`${JSON.stringify({ runs, runs_per_s: Math.round(runs / seconds), worker_us_per_run: Math.round(workerUs), executor_us_per_run: Math.round(selfUs) })}\n`);
// Disconnecting lets the worker exit on its own (and write its profile); close() would kill it.
const worker = (pool as unknown as { workers: Array<{ child: ChildProcess }> }).workers[0]?.child;
if (worker && worker.exitCode === null) {
  const exited = once(worker, 'exit');
  worker.disconnect();
  await exited;
}
await pool.close();
process.exit(0);
