import type { DetectionStats, DetectorReport } from './evaluate-detector';

const pct = (x: number | null) => (x === null ? '    -' : `${(x * 100).toFixed(1).padStart(5)}`);
const row = (name: string, s: DetectionStats) =>
  `${name.padEnd(28)} ${String(s.n).padStart(5)} ${String(s.positives).padStart(5)} ${pct(s.tpr)} ${pct(s.fpr)} ${pct(s.precision)} ${pct(s.f1)}`;

/** The report as the tables `guardagent eval --detectors` prints. */
export function formatDetectorReport(report: DetectorReport): string {
  const header = `${''.padEnd(28)} ${'n'.padStart(5)} ${'inj'.padStart(5)} ${'TPR'.padStart(5)} ${'FPR'.padStart(5)} ${'prec'.padStart(5)} ${'F1'.padStart(5)}`;
  const lines = [`${report.detector} (threshold ${report.threshold}; ${report.microsPerText} µs per text)`, header, '-'.repeat(header.length)];
  for (const split of ['dev', 'heldout', 'all'] as const) lines.push(row(split, report.splits[split]));
  for (const split of ['dev', 'heldout'] as const) {
    lines.push('', `${split}, by family (injection families: TPR; benign families: FPR)`);
    for (const [family, s] of Object.entries(report.families[split])) lines.push(row(`  ${family}`, s));
  }
  return `${lines.join('\n')}\n`;
}
