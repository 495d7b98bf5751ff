/** The performance targets, checked against one run's numbers. */
interface Target {
  key: string;
  op: '<=' | '>=';
  /** A fixed bound, or one computed from the other results (e.g. 0.4 × raw hop throughput). */
  bound: number | ((results: Record<string, unknown>) => number);
  describe: string;
}

const TARGETS: readonly Target[] = [
  { key: 'compiled_p50_ms', op: '<=', bound: 3, describe: '≤ 3 ms' },
  { key: 'compiled_p99_ms', op: '<=', bound: 15, describe: '≤ 15 ms' },
  { key: 'compiled_throughput', op: '>=', bound: 3000, describe: '≥ 3,000/s' },
  {
    key: 'compiled_vs_raw_throughput',
    op: '>=',
    bound: 0.4,
    describe: '≥ 0.4 × raw hop',
  },
  { key: 'chunked_throughput', op: '>=', bound: 10_000, describe: '≥ 10,000/s' },
  { key: 'chunked_vs_raw_throughput', op: '>=', bound: 1.2, describe: '≥ 1.2 × raw hop' },
  { key: 'redis_us_per_check', op: '<=', bound: 15, describe: '≤ 15 µs' },
  { key: 'batch_throughput', op: '>=', bound: 15_000, describe: '≥ 15,000/s' },
  { key: 'compiled_p50_vs_raw_hop', op: '<=', bound: 1.3, describe: '≤ 1.3 × raw hop p50' },
  { key: 'compiled_p99_vs_raw_hop', op: '<=', bound: 2, describe: '≤ 2 × raw hop p99' },
  { key: 'compiled_throughput_vs_raw_hop', op: '>=', bound: 0.5, describe: '≥ 0.5 × raw hop' },
  { key: 'sandbox_vs_native', op: '<=', bound: 1.3, describe: '≤ 1.3 × plain JS' },
  { key: 'decision_log_p50_ratio', op: '<=', bound: 1.1, describe: '≤ 1.1 × log off' },
  { key: 'sandbox_run_us', op: '<=', bound: 50, describe: '≤ 50 µs' },
  { key: 'per_request_overhead_ms', op: '<=', bound: 10, describe: '≤ 10 ms' },
  { key: 'rails_check_p50_ms', op: '<=', bound: 2, describe: '≤ 2 ms' },
  { key: 'rails_eval_us', op: '<=', bound: 50, describe: '≤ 50 µs' },
];

export interface TargetOutcome {
  key: string;
  value: number | null;
  target: string;
  pass: boolean | null;
}

export function checkTargets(results: Record<string, unknown>): TargetOutcome[] {
  return TARGETS.map((t) => {
    const value = typeof results[t.key] === 'number' ? (results[t.key] as number) : null;
    const bound = typeof t.bound === 'number' ? t.bound : t.bound(results);
    const pass = value === null || Number.isNaN(value) ? null : t.op === '<=' ? value <= bound : value >= bound;
    return { key: t.key, value, target: t.describe, pass };
  });
}
