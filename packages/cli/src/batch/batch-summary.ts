import type { Decision } from '@guardagent/schemas';

/** What a batch run did; `total` = `skipped` + `decided` once the run finished. */
export interface BatchCounts {
  /** Valid lines read from the input. */
  total: number;
  /** Lines whose id was already decided in --out (an earlier run). */
  skipped: number;
  /** Of the skipped lines, how many were guard errors. */
  skippedGuardErrors: number;
  /** Decisions written by this run. */
  decided: number;
  allowed: number;
  denied: number;
  /** Held for human approval (rails `requireApproval`). */
  pending: number;
  /** The guard could not decide (`status: guard_error`); the decision then follows the policy's failMode. */
  guardErrors: number;
}

export const emptyCounts = (): BatchCounts => ({ total: 0, skipped: 0, skippedGuardErrors: 0, decided: 0, allowed: 0, denied: 0, pending: 0, guardErrors: 0 });

export function countDecision(counts: BatchCounts, decision: Decision): void {
  counts.decided += 1;
  if (decision.status === 'guard_error') counts.guardErrors += 1;
  else if (decision.decision === 'allow') counts.allowed += 1;
  else if (decision.decision === 'deny') counts.denied += 1;
  else counts.pending += 1;
}

export interface SummaryExtras {
  elapsedMs: number;
  truncatedBytes: number;
  /** Peak resident memory in KiB, when asked for (--report-memory). */
  maxRssKb?: number;
  /** The peak before the run started (code loaded, workers and policy ready), KiB. */
  startRssKb?: number;
}

/** The end-of-run report for stderr, one fact per line so people and scripts can read it. */
export function formatSummary(counts: BatchCounts, extras: SummaryExtras): string {
  const seconds = extras.elapsedMs / 1000;
  const rate = seconds > 0 ? counts.decided / seconds : 0;
  const rows: Array<[string, string]> = [
    ['total', String(counts.total)],
    ['skipped', `${counts.skipped} (already decided in --out${counts.skippedGuardErrors ? `; ${counts.skippedGuardErrors} of them guard errors` : ''})`],
    ['decided', String(counts.decided)],
    ['allowed', String(counts.allowed)],
    ['denied', String(counts.denied)],
    ...(counts.pending ? [['pending', String(counts.pending)] as [string, string]] : []),
    ['guard errors', String(counts.guardErrors)],
    ['rate', `${rate.toFixed(1)}/s (${seconds.toFixed(1)} s)`],
    ...(extras.truncatedBytes ? [['repaired', `cut an unfinished last line of ${extras.truncatedBytes} bytes from --out`] as [string, string]] : []),
    ...(extras.maxRssKb !== undefined
      ? [['peak rss', `${Math.round(extras.maxRssKb / 1024)} MiB (${extras.maxRssKb} KiB)${extras.startRssKb !== undefined ? `; ${Math.round(extras.startRssKb / 1024)} MiB (${extras.startRssKb} KiB) before the run` : ''}`] as [string, string]]
      : []),
  ];
  return `batch summary\n${rows.map(([k, v]) => `  ${`${k}:`.padEnd(14)}${v}`).join('\n')}\n`;
}
