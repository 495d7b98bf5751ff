import type { TargetOutcome } from './targets';

interface Row {
  metric: string;
  value: string;
  target: string;
  result: string;
}

/** What each headline key means, in a few words, for the printed table. */
const LABELS: Record<string, string> = {
  raw_hop_throughput: 'raw BullMQ hop throughput (jobs/s)',
  raw_hop_p50_ms: 'raw BullMQ hop p50 (ms)',
  compiled_p50_ms: 'compiled check p50, serial (ms)',
  compiled_p99_ms: 'compiled check p99, serial (ms)',
  compiled_throughput: 'compiled checks/s, 1 executor',
  compiled_throughput_2x: 'compiled checks/s, 2 executors',
  chunked_throughput: 'chunked checks/s (micro-batched client.check, 1 executor)',
  redis_us_per_check: 'Redis CPU µs per check (chunked burst)',
  redis_ceiling_checks_per_s: 'checks/s one Redis core carries at that cost',
  chunked_vs_raw_throughput: 'chunked / raw hop throughput',
  compiled_throughput_4x: 'compiled checks/s, 4 executors',
  batch_throughput: 'guardagent batch, file to file, 2 executors (jobs/s)',
  decision_log_p50_ratio: 'compiled p50, every decision recorded / log off',
  cluster_throughput: 'chunked checks/s on a local 3-primary Redis Cluster, 1 executor',
  cluster_sharded_throughput: 'the same in 3 shards (GUARDAGENT_SHARDS=3), 1 executor',
  raw_hop_p99_ms: 'raw BullMQ hop p99 (ms)',
  compiled_p50_vs_raw_hop: 'compiled p50 / raw hop p50 (serial, idle)',
  compiled_p99_vs_raw_hop: 'compiled p99 / raw hop p99 (serial, idle)',
  compiled_throughput_vs_raw_hop: 'compiled checks/s, 1 executor / raw hop',
  compiled_vs_raw_throughput: 'compiled / raw hop throughput',
  scaling_2x: '2 executors / 1 executor',
  sandbox_run_us: 'sandbox run, warm program context (µs)',
  sandbox_fresh_context_run_us: 'sandbox run, fresh context (µs)',
  sandbox_trivial_run_us: 'sandbox run, trivial program (µs)',
  native_run_us: 'same program as plain JS (µs)',
  sandbox_vs_native: 'sandboxed program / plain JS',
  per_request_overhead_ms: 'per-request overhead w/o LLM wait (ms)',
  per_request_total_ms: 'per-request total, 2 × 50 ms LLM (ms)',
  rails_check_p50_ms: 'rails-only check p50, serial (ms)',
  rails_eval_us: 'rails evaluation in process (µs)',
};

export function formatTable(results: Record<string, unknown>, outcomes: readonly TargetOutcome[]): string {
  const byKey = new Map(outcomes.map((o) => [o.key, o]));
  const rows: Row[] = [];
  for (const [key, label] of Object.entries(LABELS)) {
    if (typeof results[key] !== 'number') continue;
    const outcome = byKey.get(key);
    rows.push({
      metric: label,
      value: formatNumber(results[key] as number),
      target: outcome?.target ?? '',
      result: outcome ? (outcome.pass === null ? '?' : outcome.pass ? 'PASS' : 'FAIL') : '',
    });
  }
  const header: Row = { metric: 'metric', value: 'measured', target: 'target', result: 'result' };
  const width = (k: keyof Row) => Math.max(...[header, ...rows].map((r) => r[k].length));
  const line = (r: Row) => `${r.metric.padEnd(width('metric'))}  ${r.value.padStart(width('value'))}  ${r.target.padEnd(width('target'))}  ${r.result}`;
  return [line(header), '-'.repeat(line(header).length), ...rows.map(line)].join('\n');
}

function formatNumber(value: number): string {
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  if (Math.abs(value) >= 100) return value.toFixed(0);
  return String(Math.round(value * 100) / 100);
}
