import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { QueueTransport } from '@guardagent/client/queue';
import { benchmarkRailsEval } from '@guardagent/rails';
import { parsePolicyText, type GuardJobInput } from '@guardagent/schemas';
import { REPO_ROOT } from '../lib/children';
import { startExecutor, waitForExecutors } from '../lib/executors';
import { log } from '../lib/log';
import { quantile, round } from '../lib/stats';

export interface RailsResult {
  rails_check_p50_ms: number;
  rails_check_p99_ms: number;
  rails_eval_us: number;
}

const agent = { id: 'u-1', roles: ['support_agent'], attributes: { email: 'ann@example.com' } };

/** Rails-only jobs of the refund desk: tool calls with a customer message, all decided by the rails. */
const JOBS: Array<Omit<GuardJobInput, 'policy'> & { expect: 'allow' | 'deny' }> = [
  {
    subject: agent,
    input: 'Hi, could you look up my account? My order #88231 has not arrived yet. Thanks, Ann',
    action: { kind: 'tool_call', tool: 'read_account', args: { user_id: 'u-1' } },
    expect: 'allow',
  },
  {
    subject: agent,
    input: 'Please email me the tracking number.',
    action: { kind: 'tool_call', tool: 'send_email', args: { to: 'ann@example.com', subject: 'Tracking', body: 'Your parcel is on its way.' } },
    expect: 'allow',
  },
  {
    subject: agent,
    input: 'Show me the account of user u-2.',
    action: { kind: 'tool_call', tool: 'read_account', args: { user_id: 'u-2' } },
    expect: 'deny',
  },
];

/** Serial rails-only checks through the queue (one executor process), and in-process rails evaluation. */
export async function runRails(options: { redisUrl: string; prefix: string; samples: number; workDir: string }): Promise<RailsResult> {
  const policy = parsePolicyText(readFileSync(join(REPO_ROOT, 'examples/policies/refund-desk.yaml'), 'utf8'));
  const executor = startExecutor({ redisUrl: options.redisUrl, prefix: options.prefix, index: 9, workDir: options.workDir, profileDir: null });
  const client = await QueueTransport.connect({ redisUrl: options.redisUrl, prefix: options.prefix });
  try {
    await waitForExecutors(options.redisUrl, options.prefix, 1);
    await client.putPolicy(policy);
    const latencies: number[] = [];
    const warmup = 200;
    for (let i = 0; i < warmup + options.samples; i++) {
      const { expect, ...job } = JOBS[i % JOBS.length];
      const started = performance.now();
      const decision = await client.check({ ...job, policy: policy.id });
      const ms = performance.now() - started;
      if (decision.layer !== 'rails' || decision.decision !== expect) {
        throw new Error(`rails check decided ${decision.decision} in layer ${decision.layer}, expected ${expect}: ${decision.reasons.join('; ')}`);
      }
      if (i >= warmup) latencies.push(ms);
    }
    const railsEvalUs = await benchmarkRailsEval(10_000);
    const result: RailsResult = {
      rails_check_p50_ms: round(quantile(latencies, 0.5), 3),
      rails_check_p99_ms: round(quantile(latencies, 0.99), 3),
      rails_eval_us: round(railsEvalUs, 1),
    };
    log(`rails: check p50 ${result.rails_check_p50_ms} ms, evaluate ${result.rails_eval_us} µs`);
    return result;
  } finally {
    await client.close();
    await executor.stop();
  }
}
