import type { Command } from 'commander';
import { ValidationError } from '@guardagent/errors';
import { BENCHMARK_NAMES, benchmark, evaluateInjectionDetector, evaluateIntentSets, evaluatePiiDetector, formatDetectorReport, formatIntentReport, formatPiiReport, metricsTable, policyForMode, runBaseline, runBenchmark, type BenchmarkName } from '@guardagent/benchmarks';
import { LlmClient, llmConfigFromEnv } from '@guardagent/llm';
import { LlmNotConfiguredError } from '@guardagent/errors';
import { startLocalStack } from '../local-stack';
import { ensurePolicyReady } from '../ensure-policy';
import { createProgress } from '../progress';

interface EvalOptions {
  benchmark?: string;
  detectors?: boolean;
  data?: string;
  logs?: string;
  mode: string;
  limit?: string;
  json?: boolean;
  baseline?: boolean;
  concurrency: string;
}

export function registerEval(program: Command): void {
  program
    .command('eval')
    .description("run a benchmark through the real pipeline and print the paper's metrics (LPA, LPP, LPR, EA, FRA), or measure the rails' detectors on a public corpus (--detectors)")
    .option('--benchmark <name>', BENCHMARK_NAMES.join(' | '))
    .option('--detectors', 'measure the rails detectors on public corpora: prompt injection (TPR, FPR, precision, F1 per split and family), the authored intents set in 22 languages (as written, encoded, in table cells) and PII (precision, recall, F1 per kind); µs per text')
    .option('--data <file>', 'records (default: the bundled sample)')
    .option('--logs <dir>', 'EHRAgent logs directory (eicu-ac; default: beside --data)')
    .option('--mode <mode>', 'compiled (verified program, no LLM) | per-request (the paper: LLM writes code per job)', 'compiled')
    .option('--limit <n>', 'only the first n records')
    .option('--concurrency <n>', 'jobs in flight', '64')
    .option('--baseline', "also run the paper's model-guarding-agent baseline (the LLM judges directly; needs an LLM)")
    .option('--json', 'print one JSON object instead of tables')
    .action(async (options: EvalOptions) => {
      if (options.detectors) {
        if (options.benchmark) throw new ValidationError('eval options', [{ path: 'detectors', message: 'give either --detectors or --benchmark, not both' }]);
        const injection = evaluateInjectionDetector();
        const intents = evaluateIntentSets();
        const pii = evaluatePiiDetector();
        process.stdout.write(
          options.json ? `${JSON.stringify({ injection, intents, pii })}\n` : `${formatDetectorReport(injection)}\n${formatIntentReport(intents)}\n${formatPiiReport(pii)}`,
        );
        return;
      }
      if (!BENCHMARK_NAMES.includes(options.benchmark as BenchmarkName)) {
        throw new ValidationError('eval options', [{ path: 'benchmark', message: `must be one of ${BENCHMARK_NAMES.join(', ')}` }]);
      }
      if (options.mode !== 'compiled' && options.mode !== 'per-request') {
        throw new ValidationError('eval options', [{ path: 'mode', message: 'must be compiled or per-request' }]);
      }
      const { adapter, sample } = benchmark(options.benchmark as BenchmarkName);
      const dataFile = options.data ?? sample.dataFile;
      const logsDir = options.logs ?? (options.data ? undefined : sample.logsDir);
      let records = await adapter.load(dataFile, logsDir);
      if (options.limit) records = records.slice(0, Number(options.limit));
      const policy = policyForMode(adapter.policy(), options.mode);
      const llmConfig = llmConfigFromEnv();
      if ((options.mode === 'per-request' || options.baseline) && !llmConfig) throw new LlmNotConfiguredError(`eval --mode ${options.mode}${options.baseline ? ' --baseline' : ''}`);

      const stack = await startLocalStack({ serviceName: 'guardagent-eval' });
      try {
        const ready = await ensurePolicyReady(stack.client, policy);
        if (options.mode === 'compiled' && (ready.program === 'failed' || ready.program === 'none')) {
          throw new ValidationError(policy.id, [{ path: 'program', message: `did not pass verification: ${JSON.stringify(ready.compile?.report?.failing ?? ready.compile?.error ?? 'no program')}` }]);
        }
        const progress = createProgress({ total: records.length, label: `${adapter.name} ${options.mode}` });
        const report = await runBenchmark({
          adapter,
          records,
          transport: stack.client,
          policyId: policy.id,
          concurrency: Number(options.concurrency),
          onProgress: (done) => progress.update(done),
        });
        progress.stop();
        const baseline = options.baseline && llmConfig ? await runBaseline({ adapter, records, llm: new LlmClient({ config: llmConfig }), policy }) : null;
        if (options.json) {
          process.stdout.write(
            `${JSON.stringify({
              benchmark: adapter.name,
              mode: options.mode,
              n: report.n,
              lpa: report.metrics.lpa,
              lpp: report.metrics.lpp,
              lpr: report.metrics.lpr,
              ea: report.metrics.ea,
              fra: report.metrics.fra,
              guardErrors: report.metrics.guardErrors,
              byGroup: report.byGroup,
              wrong: report.wrong,
              checksPerSecond: report.checksPerSecond,
              latencyMs: report.latencyMs,
              llmCalls: report.llmCalls,
              ...(baseline ? { baseline: baseline.metrics } : {}),
            })}\n`,
          );
          return;
        }
        const rows: Array<[string, typeof report.metrics]> = [[`all (${options.mode})`, report.metrics], ...Object.entries(report.byGroup).map(([g, m]) => [`  ${g}`, m] as [string, typeof m])];
        if (baseline) rows.push(['baseline (LLM judges)', baseline.metrics]);
        process.stdout.write(`\n${adapter.name}: ${dataFile}\n${metricsTable(rows)}\n`);
        process.stdout.write(
          `\n${report.n} checks in ${report.elapsedMs} ms: ${report.checksPerSecond}/s, latency p50 ${report.latencyMs.p50} ms, p99 ${report.latencyMs.p99} ms, LLM calls ${report.llmCalls}\n`,
        );
        if (report.wrong.length) {
          process.stdout.write(`\nwrong records (${report.wrong.length}):\n`);
          for (const w of report.wrong.slice(0, 50)) process.stdout.write(`  ${w.id} [${w.group}] label ${w.label}, got ${w.decision}/${w.status} (${w.wrong}): ${w.reasons.join('; ')}\n`);
        }
      } finally {
        await stack.stop();
      }
    });
}
