import type { Redis } from 'ioredis';
import type { Worker } from 'bullmq';
import type { GuardConfig, ShardLayout } from '@guardagent/config';
import { LlmClient, llmConfigFromEnv, type Llm } from '@guardagent/llm';
import { DemonstrationStore } from '@guardagent/memory';
import { QueueSet, RedisOutageLog, ResultStore, STAGES, settleShardLayout, createRedisConnection, waitUntilReady, type Stage } from '@guardagent/queue';
import { PolicyRegistry, ProgramStore } from '@guardagent/registry';
import type { SandboxProcessPool } from '@guardagent/sandbox/host';
import type { PipelineDeps } from './pipeline-deps';
import { requestBackgroundCompile } from './request-compile';
import { LRUCache } from 'lru-cache';
import { cachedClassifier } from './cached-classifier';
import { createRailsRuntime } from './create-rails-runtime';
import { RailsWorkerPool, warmDetectors } from '@guardagent/rails';
import { startStageWorker, type StageWorkerRuntime } from './stage-worker';
import { startFailedJobSweeper, type FailedJobSweeper } from './failed-job-sweeper';
import { createGuardRunner } from './sandbox/create-guard-runner';
import { SandboxPoolReporter } from './sandbox/sandbox-pool-reporter';
import { jsonLogger, type Logger } from '@guardagent/telemetry';

export interface RuntimeOptions {
  /** An LLM to use instead of the one configured by environment (null: none). */
  llm?: Llm | null;
  logger?: Logger;
  now?: () => number;
}

/** The stores and queues of one shard (see ShardLayout), under its key prefix. */
export interface RuntimeShard {
  prefix: string;
  queues: QueueSet;
  results: ResultStore;
  deps: PipelineDeps;
}

/** Connections, stores, sandbox and LLM of one process, shared by all its stage workers. */
export interface Runtime {
  config: GuardConfig;
  redis: Redis;
  layout: ShardLayout;
  /** One per shard, in shard order; workers are started for each (or for GUARDAGENT_WORKER_SHARDS). */
  shards: readonly RuntimeShard[];
  /** The shard a tenant's data and jobs live in. */
  shardOf(tenant: string): RuntimeShard;
  /** The first shard's (the only one unless GUARDAGENT_SHARDS > 1). */
  deps: PipelineDeps;
  queues: QueueSet;
  results: ResultStore;
  logger: Logger;
  /** Start workers for the given stages (default: all). */
  startWorkers(stages?: readonly Stage[]): Worker[];
  /** Answer recently failed jobs of the started stages that have no answer (also done on start and every 30 s). */
  sweepFailedJobs(): Promise<number>;
  /** Finish in-flight jobs, then close every worker and connection. */
  close(): Promise<void>;
}

export async function createRuntime(config: GuardConfig, options: RuntimeOptions = {}): Promise<Runtime> {
  if (!config.redisUrl) throw new Error('createRuntime needs config.redisUrl');
  const logger = options.logger ?? jsonLogger({ pid: process.pid });
  const now = options.now ?? Date.now;
  const redis = createRedisConnection(config.redisUrl, 'producer', 'runtime');
  const workerConnection = createRedisConnection(config.redisUrl, 'worker', 'workers');
  // One line when Redis is lost and one when it is back, for every connection, queue and worker.
  const outage = new RedisOutageLog(logger);
  outage.watch(redis);
  outage.watch(workerConnection);
  await Promise.all([waitUntilReady(redis), waitUntilReady(workerConnection)]);
  let layout: ShardLayout;
  try {
    layout = await settleShardLayout(redis, config.prefix, config.shards);
  } catch (error) {
    // Refused (another shard count recorded): leave no connection behind.
    redis.disconnect();
    workerConnection.disconnect();
    throw error;
  }

  const llm = options.llm !== undefined ? options.llm : (() => {
    const llmConfig = llmConfigFromEnv();
    return llmConfig ? new LlmClient({ config: llmConfig }) : null;
  })();
  const sandboxLimits = {
    cpuMs: config.sandbox.cpuMs,
    wallMs: config.sandbox.wallMs,
    memoryMb: config.sandbox.memoryMb,
    // No guard run may outlast two thirds of the queue lock (see guard-run-limits.ts).
    maxMs: Math.max(1, Math.floor((config.lockDurationMs * 2) / 3)),
  };
  // The LLM classifier behind `classifyTaskWithLlm`, one per tenant (its cache is per tenant).
  const classifiers = new LRUCache<string, ReturnType<typeof cachedClassifier>>({ max: 10_000 });
  const classify = (tenant: string) => {
    let classifier = classifiers.get(tenant);
    if (!classifier && llm) {
      classifier = cachedClassifier(llm, redis, layout.prefixOf(tenant), tenant);
      classifiers.set(tenant, classifier);
    }
    return classifier;
  };
  let sandbox: SandboxProcessPool | null = null;
  let sandboxReporter: SandboxPoolReporter | null = null;
  // Processes that never run guard code (gateway, planner, ...) never fork sandbox workers.
  const sandboxLazy = () =>
    (sandbox ??= createGuardRunner({
      ...(config.sandbox.poolSize ? { size: config.sandbox.poolSize } : {}),
      defaultLimits: { cpuMs: sandboxLimits.cpuMs, wallMs: sandboxLimits.wallMs, memoryMb: sandboxLimits.memoryMb },
      maxRunsPerIsolate: config.sandbox.maxRunsPerIsolate,
      spares: config.sandbox.spares,
      crashBudget: { perVersion: config.sandbox.crashBudget, perTenant: config.sandbox.tenantCrashBudget, windowMs: config.sandbox.crashWindowMs },
      maxWorkerRssMb: config.sandbox.workerMaxRssMb,
      warmUp: config.sandbox.warmUp === 'on',
      onQuarantine: (q) =>
        logger.warn(
          { tenant: q.tenant, scope: q.scope, version: q.version, crashes: q.crashes, untilMs: q.until },
          `sandbox quarantine: ${q.scope === 'tenant' ? 'the tenant' : 'a guard version'} killed or hung ${q.crashes} workers within the window; its runs are refused until it ends`,
        ),
      onWorkerRecycled: (event) => logger.info({ workerPid: event.pid, rssMb: event.rssMb, maxRssMb: event.maxRssMb }, 'sandbox worker past its memory bound: recycled, the spare takes over'),
      hostFunctions: llm
        ? {
            classify: async (tenant, args, call) => {
              const [text, categories, instruction] = args as [string, string[], string | undefined];
              return (classify(tenant) as NonNullable<ReturnType<typeof classify>>)(text, categories, instruction, {
                signal: call.signal,
                onUsage: call.addUsage,
              });
            },
          }
        : {},
      onWorkerGone: (event) =>
        logger.warn({ workerPid: event.pid, reason: event.reason, culprits: event.culprits, bystanders: event.bystanders }, 'sandbox worker gone; the warm spare takes over and a new spare starts'),
    }));
  /** The pool, reported to Redis every second for the gateway's /metrics and /readyz (executors only). */
  const reportedSandbox = () => {
    const pool = sandboxLazy();
    if (!sandboxReporter) {
      sandboxReporter = new SandboxPoolReporter(redis, layout.prefix, pool, { unservedMs: config.sandbox.unservedMs, logger });
      sandboxReporter.start();
    }
    return pool;
  };

  // The rails' worker threads (started with the executor stage, shared by every shard).
  const railsPool = new RailsWorkerPool({ size: config.railsWorkers });

  // One set of stores per shard, each under its shard's prefix; the LLM and sandbox are shared.
  const shards = layout.prefixes.map((prefix): RuntimeShard => {
    const queues = new QueueSet(redis, prefix, outage.onError);
    const results = new ResultStore(redis, prefix, config.resultTtlSeconds, config.decisionLog, now);
    const policies = new PolicyRegistry(redis, prefix);
    const programs = new ProgramStore(redis, prefix, now);
    const memory = new DemonstrationStore({ redis, prefix, maxDemonstrations: config.maxDemonstrations });
    const deps: PipelineDeps = {
      llm,
      get sandbox() {
        return sandboxLazy();
      },
      policies,
      programs,
      memory,
      rails: createRailsRuntime(redis, prefix, railsPool),
      railsOffload: railsPool,
      requestCompile: async (tenant, digest) => {
        await requestBackgroundCompile({ queues, policies, programs, memory, now }, tenant, digest);
      },
      maxDebugRounds: config.maxDebugRounds,
      sandboxLimits,
      now,
    };
    return { prefix, queues, results, deps };
  });

  const workers: Worker[] = [];
  const sweepers: FailedJobSweeper[] = [];
  let closing = false;
  // Workers fetch jobs on their own connections. After a Redis outage those can be back before
  // this process's write connection is, and a job fetched then fails its attempt ("Stream isn't
  // writeable"). So fetching pauses while the write connection is down (running jobs go on) and
  // resumes once it is ready.
  redis.on('close', () => {
    if (closing) return;
    for (const worker of workers) void worker.pause(true).catch(() => undefined);
  });
  redis.on('ready', () => {
    if (closing) return;
    for (const worker of workers) if (worker.isPaused()) void worker.resume().catch(() => undefined);
  });
  const runtime: Runtime = {
    config,
    redis,
    layout,
    shards,
    shardOf: (tenant) => shards[layout.shardOf(tenant)],
    deps: shards[0].deps,
    queues: shards[0].queues,
    results: shards[0].results,
    logger,
    startWorkers(stages = STAGES) {
      // The executor runs guard code: start its sandbox workers now rather than on the first check.
      if (stages.includes('executor')) {
        reportedSandbox();
        // The rails' first use builds indexes (0.1-0.5 s): here, before any job is taken, not
        // under the first check. Their worker threads warm up on their own threads.
        warmDetectors();
        void railsPool.warm();
      }
      const started: Worker[] = [];
      // GUARDAGENT_WORKER_SHARDS pins this process's workers to some shards (default: all).
      const served = config.workerShards ? shards.filter((_, i) => config.workerShards!.includes(i)) : shards;
      for (const shard of served) {
        const stageRuntime: StageWorkerRuntime = {
          deps: shard.deps,
          queues: shard.queues,
          results: shard.results,
          workerConnection,
          prefix: shard.prefix,
          logger,
          outage,
          lockDurationMs: config.lockDurationMs,
          stalledIntervalMs: config.stalledIntervalMs,
          decisionLog: config.decisionLog.record,
        };
        // A stage's concurrency is the process's, shared by the workers of the shards it serves
        // (each takes its share), so more shards never means more jobs held in memory at once.
        started.push(...stages.map((stage) => startStageWorker(stage, stageRuntime, Math.ceil(config.concurrency[stage] / served.length))));
        if (stages.length > 0) sweepers.push(startFailedJobSweeper(stageRuntime, stages));
      }
      workers.push(...started);
      return started;
    },
    async sweepFailedJobs() {
      let answered = 0;
      for (const sweeper of sweepers) answered += await sweeper.sweep();
      return answered;
    },
    async close() {
      closing = true;
      for (const sweeper of sweepers) sweeper.stop();
      await Promise.all(workers.map((w) => w.close()));
      await Promise.all(shards.map((shard) => shard.queues.close()));
      await sandboxReporter?.stop();
      await sandbox?.close();
      await railsPool.close();
      redis.disconnect();
      workerConnection.disconnect();
    },
  };
  return runtime;
}
