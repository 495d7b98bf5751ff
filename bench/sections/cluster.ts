import { Redis } from 'ioredis';
import { QueueTransport } from '@guardagent/client/queue';
import { ShardLayout, keyPrefixFor } from '@guardagent/config';
import { infoField } from '@guardagent/queue';
import { startRedisCluster, type LocalRedisCluster } from '@guardagent/local-redis';
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

type ClusterBurst = ReturnType<typeof burstStats> & { primaries: number; shards: number; tenants: number; executors: number; cpu: CpuSplit };

export interface ClusterResult {
  cluster_throughput: number;
  cluster_burst: ClusterBurst;
  /** The same burst with GUARDAGENT_SHARDS=3, one of the three tenants in each shard. */
  cluster_sharded_throughput: number;
  cluster_sharded_burst: ClusterBurst;
}

/** GUARDAGENT_SHARDS of the sharded burst: one shard per primary of the local cluster. */
const SHARDS = 3;
/** Tenants of both bursts (their checks taken in turn), so that the two differ only in shards. */
const TENANTS = 3;

/**
 * The chunked compiled burst of the compiled section, against a local three-primary Redis Cluster
 * on this same machine, with one executor and three tenants' clients: once in one shard (one hash
 * tag, so one primary serves all of GuardAgent's keys) and once in three shards with one tenant in
 * each (each shard's keys on its own primary; the CPU split shows the Redis work spread over
 * redis1..3). On one small machine
 * this says what running on a cluster costs and that it is correct (every decision checked), not
 * how far a cluster scales: the primaries share this machine's cores with the executor and client.
 */
export async function runCluster(o: ClusterOptions): Promise<ClusterResult> {
  const cluster = await startRedisCluster({ primaries: 3 });
  try {
    const one = await clusterBurst(o, cluster, o.prefix, 1);
    const sharded = await clusterBurst(o, cluster, `${o.prefix}-sharded`, SHARDS);
    return { cluster_throughput: one.throughput, cluster_burst: one.burst, cluster_sharded_throughput: sharded.throughput, cluster_sharded_burst: sharded.burst };
  } finally {
    await cluster.stop();
  }
}

async function clusterBurst(o: ClusterOptions, cluster: LocalRedisCluster, prefix: string, shards: number): Promise<{ throughput: number; burst: ClusterBurst }> {
  const target = `redis-cluster://${cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
  const executor = startExecutor({ redisUrl: target, prefix, index: 1, workDir: o.workDir, profileDir: null, env: { GUARDAGENT_SHARDS: String(shards) } });
  // Three tenants (each client chunks its own tenant's checks), one in each shard when there are three.
  const layout = new ShardLayout(keyPrefixFor(prefix, target), shards);
  const tenants: string[] = [];
  for (let i = 0; tenants.length < TENANTS; i++) {
    const tenant = `tenant-${i}`;
    if (shards === 1 || !tenants.some((t) => layout.shardOf(t) === layout.shardOf(tenant))) tenants.push(tenant);
  }
  const clients = await Promise.all(tenants.map((tenant) => QueueTransport.connect({ redisUrl: target, prefix, shards, tenant })));
  try {
    await waitForExecutors(target, prefix, 1, shards);
    for (const client of clients) {
      const compiled = await client.compile(o.workload.policy, { timeoutMs: 60_000 });
      if (compiled.status !== 'promoted') throw new Error(`the mind2web-sc program was not promoted on the cluster: ${JSON.stringify(compiled.error)}`);
    }
    let turn = 0;
    const check = (job: M2wWorkload['jobs'][number]) => clients[turn++ % clients.length].check({ policy: o.workload.policy.id, input: job.input, output: job.output });
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
    log(`cluster burst, ${shards} shard(s): ${o.jobs} checks in ${result.seconds.toFixed(2)} s = ${throughput}/s (errors ${result.errors}, wrong ${result.wrong})`);
    return { throughput, burst: { primaries: cluster.nodes.length, shards, tenants: tenants.length, executors: 1, ...burstStats(result), cpu: split } };
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    await executor.stop();
  }
}
