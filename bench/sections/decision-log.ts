import { QueueTransport } from '@guardagent/client/queue';
import { startExecutor, waitForExecutors } from '../lib/executors';
import { log } from '../lib/log';
import type { M2wWorkload } from '../lib/m2w-jobs';
import { quantile, round } from '../lib/stats';
import { checkBurst } from './compiled';

export interface DecisionLogOptions {
  redisUrl: string;
  prefix: string;
  workload: M2wWorkload;
  serialSamples: number;
  burstJobs: number;
  workDir: string;
}

export interface DecisionLogResult {
  /** Compiled check p50 (serial) with every decision recorded, over the same with none: issue 16's "within 10 %". */
  decision_log_p50_ratio: number;
  decision_log: Array<{ record: 'off' | 'all'; round: number; p50_ms: number; p99_ms: number; throughput: number }>;
}

/**
 * The compiled Mind2Web-SC checks of the compiled section, with the decision log off and then on
 * for every decision (GUARDAGENT_DECISION_LOG=all), one executor each time, four rounds
 * interleaved (off, all, off, all) so that a drift of the machine shows in both.
 */
export async function runDecisionLog(o: DecisionLogOptions): Promise<DecisionLogResult> {
  const client = await QueueTransport.connect({ redisUrl: o.redisUrl, prefix: o.prefix });
  const rows: DecisionLogResult['decision_log'] = [];
  try {
    for (const round_ of [1, 2, 3, 4]) {
      for (const record of ['off', 'all'] as const) {
        const executor = startExecutor({ redisUrl: o.redisUrl, prefix: o.prefix, index: 20 + rows.length, workDir: o.workDir, profileDir: null, env: { GUARDAGENT_DECISION_LOG: record } });
        try {
          await waitForExecutors(o.redisUrl, o.prefix, 1);
          const compiled = await client.compile(o.workload.policy, { timeoutMs: 60_000 });
          if (compiled.status !== 'promoted') throw new Error('the mind2web-sc program was not promoted');
          const check = (job: M2wWorkload['jobs'][number]) => client.check({ policy: o.workload.policy.id, input: job.input, output: job.output });
          for (let i = 0; i < 100; i++) await check(o.workload.jobs[i % o.workload.jobs.length]);
          const latencies: number[] = [];
          for (let i = 0; i < o.serialSamples; i++) {
            const started = performance.now();
            await check(o.workload.jobs[i % o.workload.jobs.length]);
            latencies.push(performance.now() - started);
          }
          const burst = await checkBurst(check, o.workload.jobs, o.burstJobs, 2000);
          if (burst.errors > 0 || burst.wrong > 0) throw new Error(`decision-log burst: ${burst.errors} errors, ${burst.wrong} wrong`);
          rows.push({ record, round: round_, p50_ms: round(quantile(latencies, 0.5), 3), p99_ms: round(quantile(latencies, 0.99), 3), throughput: Math.round(o.burstJobs / burst.seconds) });
          log(`decision log ${record} (round ${round_}): p50 ${rows.at(-1)!.p50_ms} ms, ${rows.at(-1)!.throughput}/s`);
        } finally {
          await executor.stop();
        }
      }
    }
  } finally {
    await client.close();
  }
  const median = (record: 'off' | 'all') => quantile(rows.filter((r) => r.record === record).map((r) => r.p50_ms), 0.5);
  return { decision_log_p50_ratio: round(median('all') / median('off'), 3), decision_log: rows };
}
