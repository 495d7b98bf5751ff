import type { Redis } from 'ioredis';
import { QueueTransport } from '@guardagent/client/queue';
import type { Decision } from '@guardagent/schemas';
import { childCounts } from '../lib/child-counts';
import { startExecutor, waitForExecutors, type ExecutorProcess } from '../lib/executors';
import { log } from '../lib/log';
import type { M2wWorkload } from '../lib/m2w-jobs';
import { CpuSampler, type CpuSplit, type CpuTarget } from '../lib/proc-cpu';
import { countsPerItem, installRedisCommandCounter, type RedisCommandCounts } from '../lib/redis-command-counter';
import { commandCalls, commandsPerItem, meanKeyBytes, usedMemoryBytes, type ServerCommandsPerItem } from '../lib/redis-stats';
import { cpuCeiling } from '../lib/proc-cpu';
import { profileWhile } from '../lib/self-profile';
import { quantile, round } from '../lib/stats';

export interface CompiledOptions {
  redisUrl: string;
  /** A plain connection for INFO. */
  admin: Redis;
  redisPid: number;
  prefix: string;
  workload: M2wWorkload;
  serialWarmup: number;
  serialSamples: number;
  jobs: number;
  inFlight: number;
  workDir: string;
  profileDir: string | null;
}

interface BurstResult {
  throughput: number;
  seconds: number;
  errors: number;
  wrong: number;
  p50_ms: number;
  p99_ms: number;
  cpu: CpuSplit;
  /** Redis round trips / commands per check sent by the client process and by each executor. */
  roundTrips: Record<string, RedisCommandCounts>;
  /** Commands redis-server executed per check (INFO commandstats; includes commands run inside Lua scripts). */
  serverCommands: ServerCommandsPerItem;
  /** CPU µs per check summed over client, executor(s) and redis-server. */
  cpuUsPerCheck: number;
  /** Checks/s if the machine's cores did nothing else: cores × 1e6 / cpuUsPerCheck (robust to a busy machine). */
  cpuBoundCeiling: number;
  /** Checks/s one executor process could do at its measured CPU per check (it is single-threaded JS). */
  executorBound: number;
  /**
   * Redis memory each check leaves behind (used_memory after − before the burst, per check): its
   * decision (kept resultTtlSeconds, 24 h by default) and its completed job (kept 1 h, at most 100,000).
   */
  redisBytesPerCheck: number;
}

export interface CompiledResult {
  compiled_program: string;
  compiled_p50_ms: number;
  compiled_p99_ms: number;
  compiled_serial: { samples: number; mean_ms: number; execute_ms_p50: number; decision_bytes: number };
  /** Mean MEMORY USAGE of one stored decision key, one completed executor job and one idempotency binding, bytes. */
  compiled_redis_key_bytes: { decision: number; completed_job: number; idempotency_binding: number };
  compiled_throughput: number;
  compiled_throughput_2x: number;
  compiled_burst_1x: BurstResult;
  compiled_burst_2x: BurstResult;
  compiled_throughput_4x: number;
  compiled_burst_4x: BurstResult;
  /** CPU µs per check of each process, and the checks/s each resource would carry alone, for 1, 2 and 4 executors. */
  executor_scaling: ScalingRow[];
}

interface ScalingRow {
  executors: number;
  throughput: number;
  /** CPU µs per check: client, Redis, each executor process, and each executor's sandbox worker processes. */
  us_per_check: { client: number; redis: number; executors: number[]; sandboxes: number[] };
  /**
   * Checks/s if only this resource were the limit: one core for the client, one for Redis (it runs
   * commands on one), and one core per executor process (its event loop); the sandbox workers are
   * not a separate limit (they are as many as the cores).
   */
  ceiling_per_s: { client: number; redis: number; executors: number };
  /** Checks/s the machine's cores could give at the total CPU per check (every process above). */
  machine_ceiling_per_s: number;
}

/** One line of the executor scaling table from a burst's CPU split. */
function scalingRow(executors: number, burst: BurstResult): ScalingRow {
  const us = burst.cpu.usPerItem;
  const of = (prefix: string) =>
    Object.entries(us)
      .filter(([name]) => name.startsWith(prefix))
      .map(([, value]) => value);
  const perExecutor = of('executor');
  const slowest = Math.max(...perExecutor);
  return {
    executors,
    throughput: burst.throughput,
    us_per_check: { client: us.client, redis: us.redis, executors: perExecutor, sandboxes: of('sandbox') },
    ceiling_per_s: { client: Math.round(1e6 / us.client), redis: Math.round(1e6 / us.redis), executors: Math.round(1e6 / slowest) },
    machine_ceiling_per_s: burst.cpuBoundCeiling,
  };
}

type Job = M2wWorkload['jobs'][number];

/** Checks through the queue: serial latency, then bursts with one and with two executor processes. */
export async function runCompiled(o: CompiledOptions): Promise<CompiledResult> {
  const clientCounts = installRedisCommandCounter();
  const executors: ExecutorProcess[] = [startExecutor({ redisUrl: o.redisUrl, prefix: o.prefix, index: 1, workDir: o.workDir, profileDir: o.profileDir })];
  const client = await QueueTransport.connect({ redisUrl: o.redisUrl, prefix: o.prefix });
  try {
    await waitForExecutors(o.redisUrl, o.prefix, 1);
    const compiled = await client.compile(o.workload.policy, { timeoutMs: 60_000 });
    if (compiled.status !== 'promoted') throw new Error(`the mind2web-sc program was not promoted: ${JSON.stringify(compiled.report?.failing ?? compiled.error)}`);
    const policyId = o.workload.policy.id;
    const check = (job: Job) => client.check({ policy: policyId, input: job.input, output: job.output });

    // Serial latency: submit, wait for the decision, repeat.
    for (let i = 0; i < o.serialWarmup; i++) await check(o.workload.jobs[i % o.workload.jobs.length]);
    const latencies: number[] = [];
    const executeMs: number[] = [];
    let decisionBytes = 0;
    for (let i = 0; i < o.serialSamples; i++) {
      const job = o.workload.jobs[i % o.workload.jobs.length];
      const started = performance.now();
      const decision = await check(job);
      latencies.push(performance.now() - started);
      assertCompiled(decision, job);
      executeMs.push(decision.timings.execute ?? Number.NaN);
      decisionBytes += Buffer.byteLength(JSON.stringify(decision));
    }
    log(`compiled serial: p50 ${round(quantile(latencies, 0.5))} ms, p99 ${round(quantile(latencies, 0.99))} ms`);

    const burst = async (label: string): Promise<BurstResult> => {
      await checkBurst(check, o.workload.jobs, Math.min(2000, o.jobs), o.inFlight); // warm the JIT at this concurrency
      const pids: Record<string, CpuTarget> = { client: process.pid, redis: o.redisPid };
      executors.forEach((e, i) => {
        pids[`executor${i + 1}`] = e.pid;
        // Its sandbox worker processes: guard code and the toolbox run there.
        pids[`sandbox${i + 1}`] = { descendantsOf: e.pid };
      });
      const cpu = new CpuSampler(pids);
      const beforeClient = clientCounts();
      const beforeExecutors = await Promise.all(executors.map((e) => childCounts(e, e.countFile)));
      const beforeServer = await commandCalls(o.admin);
      const beforeBytes = await usedMemoryBytes(o.admin);
      cpu.begin();
      const result = await profileWhile(o.profileDir, `client-burst-${label.replace(/\W+/g, '-')}`, () => checkBurst(check, o.workload.jobs, o.jobs, o.inFlight));
      const split = cpu.end(o.jobs);
      const afterServer = await commandCalls(o.admin);
      const afterBytes = await usedMemoryBytes(o.admin);
      const afterExecutors = await Promise.all(executors.map((e) => childCounts(e, e.countFile)));
      const roundTrips: Record<string, RedisCommandCounts> = { client: countsPerItem(beforeClient, clientCounts(), o.jobs) };
      executors.forEach((_, i) => {
        roundTrips[`executor${i + 1}`] = countsPerItem(beforeExecutors[i], afterExecutors[i], o.jobs);
      });
      const throughput = Math.round(o.jobs / result.seconds);
      log(`compiled burst ${label}: ${o.jobs} checks in ${result.seconds.toFixed(2)} s = ${throughput}/s (errors ${result.errors}, wrong ${result.wrong})`);
      return {
        throughput,
        ...burstStats(result),
        cpu: split,
        roundTrips,
        serverCommands: commandsPerItem(beforeServer, afterServer, o.jobs),
        ...cpuCeiling(split),
        executorBound: Math.round(
          (1e6 * executors.length) / Object.entries(split.usPerItem).filter(([k]) => k.startsWith('executor')).reduce((a, [, v]) => a + v, 0),
        ),
        redisBytesPerCheck: Math.round((afterBytes - beforeBytes) / o.jobs),
      };
    };

    const one = await burst('1 executor');
    executors.push(startExecutor({ redisUrl: o.redisUrl, prefix: o.prefix, index: 2, workDir: o.workDir, profileDir: o.profileDir }));
    await waitForExecutors(o.redisUrl, o.prefix, 2);
    const two = await burst('2 executors');
    executors.push(
      startExecutor({ redisUrl: o.redisUrl, prefix: o.prefix, index: 3, workDir: o.workDir, profileDir: o.profileDir }),
      startExecutor({ redisUrl: o.redisUrl, prefix: o.prefix, index: 4, workDir: o.workDir, profileDir: o.profileDir }),
    );
    await waitForExecutors(o.redisUrl, o.prefix, 4);
    const four = await burst('4 executors');
    // A few checks with idempotency keys (the HTTP SDK sends one with every check), to size their bindings.
    for (let i = 0; i < 20; i++) {
      const job = o.workload.jobs[i % o.workload.jobs.length];
      await client.check({ policy: policyId, input: job.input, output: job.output, idempotencyKey: `bench-${i}` });
    }

    return {
      compiled_program: 'examples/policies/mind2web-sc.yaml program (seeact toolbox: extractSection, readFactsSection, classifyTask, checkRules) on the bundled Mind2Web-SC sample jobs',
      compiled_p50_ms: round(quantile(latencies, 0.5), 3),
      compiled_p99_ms: round(quantile(latencies, 0.99), 3),
      compiled_serial: {
        samples: latencies.length,
        mean_ms: round(latencies.reduce((a, b) => a + b, 0) / latencies.length, 3),
        execute_ms_p50: round(quantile(executeMs, 0.5), 3),
        /** Mean size of a decision as JSON: stored, published and parsed once per check. */
        decision_bytes: Math.round(decisionBytes / latencies.length),
      },
      compiled_redis_key_bytes: {
        decision: await meanKeyBytes(o.admin, `${o.prefix}:default:decision:*`),
        completed_job: await meanKeyBytes(o.admin, `${o.prefix}:executor:[0-9a-f]*-*-*`),
        idempotency_binding: await meanKeyBytes(o.admin, `${o.prefix}:default:idempotency:*`),
      },
      compiled_throughput: one.throughput,
      compiled_throughput_2x: two.throughput,
      compiled_burst_1x: one,
      compiled_burst_2x: two,
      compiled_throughput_4x: four.throughput,
      compiled_burst_4x: four,
      executor_scaling: [scalingRow(1, one), scalingRow(2, two), scalingRow(4, four)],
    };
  } finally {
    await client.close();
    await Promise.all(executors.map((e) => e.stop()));
  }
}

function assertCompiled(decision: Decision, job: Job): boolean {
  if (decision.status !== 'ok' || decision.mode !== 'compiled') throw new Error(`expected a compiled decision, got ${decision.status}/${decision.mode}: ${decision.reasons.join('; ')}`);
  return (decision.decision === 'deny') === (job.label === 1);
}

/** `n` checks with at most `inFlight` outstanding (each slot submits its next check when its decision arrives). */
export async function checkBurst(
  check: (job: Job) => Promise<Decision>,
  jobs: readonly Job[],
  n: number,
  inFlight: number,
): Promise<{ seconds: number; errors: number; wrong: number; latencies: number[] }> {
  let next = 0;
  let errors = 0;
  let wrong = 0;
  const latencies: number[] = [];
  const started = performance.now();
  const slot = async () => {
    while (next < n) {
      const job = jobs[next++ % jobs.length];
      const at = performance.now();
      const decision = await check(job);
      latencies.push(performance.now() - at);
      if (decision.status !== 'ok' || decision.mode !== 'compiled') errors++;
      else if ((decision.decision === 'deny') !== (job.label === 1)) wrong++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, n) }, slot));
  return { seconds: (performance.now() - started) / 1000, errors, wrong, latencies };
}

/** What every burst reports of itself: duration, errors, wrong decisions, latency quantiles. */
export function burstStats(result: Awaited<ReturnType<typeof checkBurst>>): { seconds: number; errors: number; wrong: number; p50_ms: number; p99_ms: number } {
  return {
    seconds: round(result.seconds),
    errors: result.errors,
    wrong: result.wrong,
    p50_ms: round(quantile(result.latencies, 0.5)),
    p99_ms: round(quantile(result.latencies, 0.99)),
  };
}
