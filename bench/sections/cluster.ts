import { Redis } from 'ioredis';
import { QueueTransport } from '@guardagent/client';
import { infoField } from '@guardagent/queue';
import { startRedisCluster } from '@guardagent/local-redis';
import { startExecutor, waitForExecutors } from '../lib/executors';
import { log } from '../lib/log';
import type { M2wWorkload } from '../lib/m2w-jobs';
import { CpuSampler, type CpuSplit, type CpuTarget } from '../lib/proc-cpu';
import { burstStats, checkBurst } from './compiled';

export interface ClusterOptions {
  prefix: string;
  workload: M2wWorkload;
  jobs: number;
  inFlight: number;
  workDir: string;
}

export interface ClusterResult {
  cluster_throughput: number;
  cluster_burst: { primaries: number; executors: number; seconds: number; errors: number; wrong: number; p50_ms: number; p99_ms: number; cpu: CpuSplit };
}

/**
 * The chunked compiled burst of the compiled section, against a local three-primary Redis Cluster
 * on this same machine, with one executor. On one small machine this says what running on a
 * cluster costs and that it is correct (every decision checked), not how far a cluster scales: the
 * prefix is one hash tag, so one primary serves all of GuardAgent's keys (see infra/README.md).
 */
export async function runCluster(o: ClusterOptions): Promise<ClusterResult> {
  const cluster = await startRedisCluster({ primaries: 3 });
  const target = `redis-cluster://${cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
  const executor = startExecutor({ redisUrl: target, prefix: o.prefix, index: 1, workDir: o.workDir, profileDir: null });
  const client = await QueueTransport.connect({ redisUrl: target, prefix: o.prefix });
  try {
    await waitForExecutors(target, o.prefix, 1);
    const compiled = await client.compile(o.workload.policy, { timeoutMs: 60_000 });
    if (compiled.status !== 'promoted') throw new Error(`the mind2web-sc program was not promoted on the cluster: ${JSON.stringify(compiled.error)}`);
    const check = (job: M2wWorkload['jobs'][number]) => client.check({ policy: o.workload.policy.id, input: job.input, output: job.output });
    await checkBurst(check, o.workload.jobs, Math.min(2000, o.jobs), o.inFlight);

    const pids: Record<string, CpuTarget> = { client: process.pid, executor1: executor.pid, sandbox1: { descendantsOf: executor.pid } };
    for (const [i, node] of cluster.nodes.entries()) {
      const admin = new Redis(node.port, node.host);
      try {
        pids[`redis${i + 1}`] = Number(infoField(await admin.info('server'), 'process_id'));
      } finally {
        admin.disconnect();
      }
    }
    const cpu = new CpuSampler(pids);
    cpu.begin();
    const result = await checkBurst(check, o.workload.jobs, o.jobs, o.inFlight);
    const split = cpu.end(o.jobs);
    const throughput = Math.round(o.jobs / result.seconds);
    log(`cluster burst: ${o.jobs} checks in ${result.seconds.toFixed(2)} s = ${throughput}/s (errors ${result.errors}, wrong ${result.wrong})`);
    return {
      cluster_throughput: throughput,
      cluster_burst: {
        primaries: cluster.nodes.length,
        executors: 1,
        ...burstStats(result),
        cpu: split,
      },
    };
  } finally {
    await client.close();
    await executor.stop();
    await cluster.stop();
  }
}
