export { computeMetrics, metricsByGroup, type Metrics, type ScoredRecord } from './metrics';
export type { BenchmarkAdapter } from './benchmark-adapter';
export * from './eicu-ac/index';
export * from './mind2web-sc/index';
export { benchmark, BENCHMARK_NAMES, type BenchmarkName, type BenchmarkEntry } from './benchmark-registry';
export { runBenchmark, policyForMode, type BenchmarkReport, type BenchmarkRunOptions, type WrongRecord } from './run-benchmark';
export { runBaseline } from './run-baseline';
export { metricsTable } from './format-report';
export * from './detectors/index';
