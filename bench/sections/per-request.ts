import { QueueTransport } from '@guardagent/client/queue';
import { loadConfig } from '@guardagent/config';
import { LlmClient, type Llm } from '@guardagent/llm';
import { createRuntime } from '@guardagent/pipeline';
import type { PolicyInput } from '@guardagent/schemas';
// The src path, not the package: the package index also exports vitest-only helpers.
import { startFakeLlmServer } from '../../packages/testing/src/fake-llm-server';
import { log } from '../lib/log';
import { median, round } from '../lib/stats';
import { silentLogger } from '@guardagent/telemetry';

export interface PerRequestResult {
  per_request_overhead_ms: number;
  per_request_total_ms: number;
  per_request_llm_wait_ms: number;
  per_request_fake_llm_delay_ms: number;
  per_request_overhead_vs_server_delay_ms: number;
  per_request_samples: number;
  per_request_stage_timings_ms: Record<string, number>;
}

const LLM_DELAY_MS = 50;

const policy: PolicyInput = {
  id: 'bench-hotel-age',
  specification: 'A travel agent that books hotels for users.',
  requests: 'Users under 18 cannot book a hotel.',
  mode: 'per-request',
  demonstrations: [
    { input: 'Task: book a hotel\nage: 12', output: 'ACTION: CLICK Book', plan: '1. age >= 18 needed', code: 'return { deny: true, reasons: ["under 18"] };' },
  ],
};
const PLAN = '1. Key points: age >= 18 to book hotels.\n2. Applies: the task books a hotel.\n3. Output books.\n4. Compare age with 18.';
const CODE = `const age = Number((/age: (\\d+)/.exec(String(input)) || [])[1]);
return age < 18 ? { deny: true, reasons: ['User aged under 18 cannot book a hotel'] } : { deny: false, reasons: [] };`;

/** An Llm that records how long each chat call took, as the pipeline sees it. */
function timedLlm(inner: Llm, waits: number[]): Llm {
  return {
    async chat(messages, opts) {
      const started = performance.now();
      try {
        return await inner.chat(messages, opts);
      } finally {
        waits.push(performance.now() - started);
      }
    },
  };
}

/**
 * The per-request GuardAgent pipeline (memory → planner → codegen → executor), all five stages in
 * this process (as `guardagent up` runs them), against a fake LLM that answers after 50 ms.
 * Overhead = end-to-end time minus the time spent inside the two LLM calls.
 */
export async function runPerRequest(options: { redisUrl: string; prefix: string; samples: number }): Promise<PerRequestResult> {
  const server = await startFakeLlmServer((body) => {
    const system = String(body?.messages?.[0]?.content ?? '');
    const content = system.startsWith('You are the code writer') ? '```javascript\n' + CODE + '\n```' : PLAN;
    return { content, delayMs: LLM_DELAY_MS };
  });
  const waits: number[] = [];
  const llm = timedLlm(
    new LlmClient({ config: { baseURL: server.baseURL, apiKey: 'sk-bench-not-a-key', model: 'fake-model', timeoutMs: 10_000, maxRetries: 0 } }),
    waits,
  );
  const config = loadConfig({}, { redisUrl: options.redisUrl, prefix: options.prefix });
  const runtime = await createRuntime(config, { llm, logger: silentLogger });
  runtime.startWorkers();
  const client = await QueueTransport.connect({ redisUrl: options.redisUrl, prefix: options.prefix });
  try {
    await client.putPolicy(policy);
    const overheads: number[] = [];
    const totals: number[] = [];
    const llmWaits: number[] = [];
    const stageTimings: Record<string, number[]> = {};
    const warmup = 3;
    for (let i = 0; i < warmup + options.samples; i++) {
      const age = 10 + (i % 20);
      waits.length = 0;
      const started = performance.now();
      const decision = await client.check({ policy: policy.id, input: `Task: book a hotel in Rome\nage: ${age}`, output: 'ACTION: CLICK Book now' });
      const total = performance.now() - started;
      if (decision.status !== 'ok' || decision.mode !== 'per-request' || decision.usage.calls !== 2) {
        throw new Error(`per-request check did not run the pipeline: ${decision.status}/${decision.mode}, ${decision.usage.calls} LLM calls: ${decision.reasons.join('; ')}`);
      }
      if ((decision.decision === 'deny') !== age < 18) throw new Error(`per-request check decided ${decision.decision} for age ${age}`);
      if (i < warmup) continue;
      const wait = waits.reduce((a, b) => a + b, 0);
      totals.push(total);
      llmWaits.push(wait);
      overheads.push(total - wait);
      for (const [stage, ms] of Object.entries(decision.timings)) {
        stageTimings[stage] ??= [];
        stageTimings[stage].push(ms);
      }
    }
    const result: PerRequestResult = {
      per_request_overhead_ms: round(median(overheads)),
      per_request_total_ms: round(median(totals)),
      per_request_llm_wait_ms: round(median(llmWaits)),
      per_request_fake_llm_delay_ms: 2 * LLM_DELAY_MS,
      per_request_overhead_vs_server_delay_ms: round(median(totals) - 2 * LLM_DELAY_MS),
      per_request_samples: overheads.length,
      per_request_stage_timings_ms: Object.fromEntries(Object.entries(stageTimings).map(([k, v]) => [k, round(median(v))])),
    };
    log(`per-request: total ${result.per_request_total_ms} ms, LLM ${result.per_request_llm_wait_ms} ms, overhead ${result.per_request_overhead_ms} ms`);
    return result;
  } finally {
    await client.close();
    await runtime.close();
    await server.close();
  }
}
