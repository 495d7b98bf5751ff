import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { startRedisServer, type LocalRedis } from '@guardagent/local-redis';
import { parseArgs } from './lib/args';
import { formatTable } from './lib/format-table';
import { log } from './lib/log';
import { m2wWorkload } from './lib/m2w-jobs';
import { redisServerInfo } from './lib/redis-stats';
import { round } from './lib/stats';
import { checkTargets } from './lib/targets';
import { runCompiled } from './sections/compiled';
import { runPerRequest } from './sections/per-request';
import { runRails } from './sections/rails';
import { runRawHop } from './sections/raw-hop';
import { runSandbox } from './sections/sandbox';
import { runAdversarial } from './sections/adversarial';
import { runBatchBench } from './sections/batch';
import { runCluster } from './sections/cluster';
import { runDecisionLog } from './sections/decision-log';
import { runStartTime } from './sections/start-time';
import { runHops } from './sections/hops';
import { runRetrieval } from './sections/retrieval';

/**
 * `npm run bench [-- --json]`: every number of docs/performance.md from one run on this machine.
 * Starts a private redis-server unless REDIS_URL is set; every section uses its own key prefix.
 */
const args = parseArgs(process.argv.slice(2));
const scaled = (n: number, min = 1) => Math.max(min, Math.round(n * args.scale));
const wants = (section: string) => !args.only || args.only.has(section);
const runId = randomBytes(4).toString('hex');
const prefix = (section: string) => `bench-${runId}-${section}`;
const workDir = mkdtempSync(join(tmpdir(), 'guardagent-bench-'));
const profileDir = args.profileDir ? resolve(args.profileDir) : null;
if (profileDir) mkdirSync(profileDir, { recursive: true });

const localRedis: LocalRedis | null = process.env.REDIS_URL ? null : await startRedisServer();
const redisUrl = localRedis?.url ?? process.env.REDIS_URL!;
const admin = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
const startedAt = performance.now();
const results: Record<string, unknown> = {};
try {
  const server = await redisServerInfo(admin);
  log(`redis ${server.version} (pid ${server.pid}) at ${localRedis ? 'a private redis-server' : 'REDIS_URL'}; load average ${readLoad()}`);
  results.machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    redis: server.version,
    platform: `${process.platform}-${process.arch}`,
    loadAverageAtStart: readLoad(),
  };
  const workload = await m2wWorkload();

  if (wants('raw')) {
    Object.assign(
      results,
      await runRawHop({ redisUrl, redisPid: server.pid, prefix: prefix('raw'), jobs: scaled(20_000, 1000), samples: scaled(500, 50), concurrency: 100, payloadChars: workload.meanJobChars }),
    );
  }
  if (wants('compiled')) {
    Object.assign(
      results,
      await runCompiled({
        redisUrl,
        admin,
        redisPid: server.pid,
        prefix: prefix('compiled'),
        workload,
        serialWarmup: scaled(300, 50),
        serialSamples: scaled(1000, 100),
        jobs: scaled(20_000, 1000),
        inFlight: 2000,
        workDir,
        profileDir,
      }),
    );
    results.compiled_mean_job_chars = workload.meanJobChars;
  }
  if (wants('batch')) Object.assign(results, await runBatchBench({ redisUrl, prefix: prefix('batch'), jobs: scaled(100_000, 2000), executors: 2, workDir }));
  if (wants('cluster')) Object.assign(results, await runCluster({ prefix: prefix('cluster'), workload, jobs: scaled(20_000, 1000), inFlight: 2000, workDir }));
  if (wants('decision-log')) {
    Object.assign(results, await runDecisionLog({ redisUrl, prefix: prefix('decision-log'), workload, serialSamples: scaled(500, 50), burstJobs: scaled(5000, 500), workDir }));
  }
  if (wants('hops')) {
    Object.assign(results, await runHops({ redisUrl, prefix: prefix('hops'), workload, warmup: scaled(300, 50), samples: scaled(500, 100), burstInFlight: 200, workDir }));
  }
  if (wants('sandbox')) Object.assign(results, await runSandbox(workload, scaled(5000, 500)));
  if (wants('per-request')) Object.assign(results, await runPerRequest({ redisUrl, prefix: prefix('per-request'), samples: scaled(30, 10) }));
  if (wants('rails')) Object.assign(results, await runRails({ redisUrl, prefix: prefix('rails'), samples: scaled(1000, 100), workDir }));
  if (wants('adversarial')) Object.assign(results, await runAdversarial({ redisUrl, prefix: prefix('adversarial'), ordinary: scaled(3000, 300) }));
  if (wants('retrieval')) {
    Object.assign(
      results,
      await runRetrieval({
        sizes: [
          { label: '1k', n: scaled(1000, 100) },
          { label: '10k', n: scaled(10_000, 100) },
          { label: '100k', n: scaled(100_000, 100) },
        ],
        queries: scaled(200, 20),
        scanQueries: scaled(3, 1),
      }),
    );
  }
  if (wants('start')) Object.assign(results, await runStartTime({ redisUrl, prefix: prefix('start'), runs: scaled(5, 3) }));

  if (typeof results.compiled_throughput === 'number' && typeof results.raw_hop_throughput === 'number') {
    results.compiled_vs_raw_throughput = round(results.compiled_throughput / results.raw_hop_throughput, 3);
  }
  // The compiled burst goes through client.check, which micro-batches: it is issue 13's chunked burst.
  const burst1 = results.compiled_burst_1x as { throughput: number; cpu: { usPerItem: Record<string, number> } } | undefined;
  if (burst1) {
    results.chunked_throughput = burst1.throughput;
    results.redis_us_per_check = burst1.cpu.usPerItem.redis;
    results.redis_ceiling_checks_per_s = Math.round(1e6 / burst1.cpu.usPerItem.redis);
    if (typeof results.raw_hop_throughput === 'number') results.chunked_vs_raw_throughput = round(burst1.throughput / results.raw_hop_throughput, 3);
  }
  // Issue 39's ratios, each from this one run: a lone check against the bare hop, one executor's
  // burst against the hop's, the sandboxed program against the same code as plain JavaScript.
  const ratio = (a: unknown, b: unknown) => (typeof a === 'number' && typeof b === 'number' && b > 0 ? round(a / b, 3) : undefined);
  const ratios = {
    compiled_p50_vs_raw_hop: ratio(results.compiled_p50_ms, results.raw_hop_p50_ms),
    compiled_p99_vs_raw_hop: ratio(results.compiled_p99_ms, results.raw_hop_p99_ms),
    compiled_throughput_vs_raw_hop: ratio(results.compiled_throughput, results.raw_hop_throughput),
    sandbox_vs_native: ratio(results.sandbox_run_us, results.native_run_us),
  };
  for (const [key, value] of Object.entries(ratios)) if (value !== undefined) results[key] = value;
  if (typeof results.compiled_throughput === 'number' && typeof results.compiled_throughput_2x === 'number') {
    results.scaling_2x = round(results.compiled_throughput_2x / results.compiled_throughput, 3);
  }
  const outcomes = checkTargets(results);
  results.targets = Object.fromEntries(outcomes.map((o) => [o.key, { target: o.target, value: o.value, pass: o.pass }]));
  (results.machine as Record<string, unknown>).loadAverageAtEnd = readLoad();
  results.duration_s = round((performance.now() - startedAt) / 1000, 1);
  if (profileDir) results.profiles = profileDir;

  const m = results.machine as Record<string, unknown>;
  const table =
    `GuardAgent bench: ${m.cpus} × ${m.cpuModel}, Node ${m.node}, Redis ${m.redis}, load ${m.loadAverageAtStart} → ${m.loadAverageAtEnd}, ${results.duration_s} s\n\n` +
    `${formatTable(results, outcomes)}\n`;
  // With --json the table still goes to stderr, so one run gives both.
  if (args.json) {
    process.stderr.write(`\n${table}`);
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  } else process.stdout.write(`${table}\n(--json for every number, CPU split and Redis commands per check)\n`);
} finally {
  admin.disconnect();
  await localRedis?.stop();
  rmSync(workDir, { recursive: true, force: true });
}
process.exit(0);

function readLoad(): string {
  return loadavg()
    .slice(0, 2)
    .map((n) => n.toFixed(2))
    .join(' ');
}
