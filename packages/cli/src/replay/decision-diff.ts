import type { DecisionLogEntry } from '@guardagent/schemas';
import type { DecisionLine } from '../batch/decision-line';

/** Kinds of change between a recorded decision and its replay. */
export const CHANGE_KINDS = ['allow→deny', 'deny→allow', 'to pending', 'from pending', 'newly erroring', 'no longer erroring', 'reasons or rules changed'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];
/** The kinds that change what the agent may do. */
export const FLIPS: readonly ChangeKind[] = ['allow→deny', 'deny→allow', 'to pending', 'from pending'];

const EXAMPLES_PER_KIND = 3;

export interface DecisionDiff {
  /** Recorded entries read, and those compared with a replayed decision. */
  recorded: number;
  compared: number;
  /** Entries recorded without their job (too large), which no replay can decide. */
  notReplayable: number;
  /** Replayable entries with no replayed decision (the replay did not finish). */
  missing: number;
  unchanged: number;
  changes: Record<ChangeKind, number>;
  flips: number;
  /** Changes by the rule that fired on the side that denies or holds (else `(no rule)`), and by subject role. */
  byRule: Record<string, Partial<Record<ChangeKind, number>>>;
  byRole: Record<string, Partial<Record<ChangeKind, number>>>;
  examples: Partial<Record<ChangeKind, Array<{ id: string; recorded: Summary; replayed: Summary }>>>;
}

interface Summary {
  decision: string;
  status: string;
  reasons: string[];
  rules: string[];
}

/** What changed from `before` to `after`, or null when nothing did. */
export function changeOf(before: Summary, after: Summary): ChangeKind | null {
  if (before.status !== 'guard_error' && after.status === 'guard_error') return 'newly erroring';
  if (before.status === 'guard_error' && after.status !== 'guard_error') return 'no longer erroring';
  if (before.decision !== after.decision) {
    if (after.decision === 'pending') return 'to pending';
    if (before.decision === 'pending') return 'from pending';
    return before.decision === 'allow' ? 'allow→deny' : 'deny→allow';
  }
  const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  return same(before.reasons, after.reasons) && same(before.rules, after.rules) ? null : 'reasons or rules changed';
}

/**
 * Compare recorded decisions with their replay under another policy version. Holds the replayed
 * decisions (by id) and a few examples per kind; the recorded side streams.
 */
export async function diffDecisions(recorded: AsyncIterable<DecisionLogEntry>, replayed: ReadonlyMap<string, DecisionLine>): Promise<DecisionDiff> {
  const diff: DecisionDiff = {
    recorded: 0,
    compared: 0,
    notReplayable: 0,
    missing: 0,
    unchanged: 0,
    changes: Object.fromEntries(CHANGE_KINDS.map((kind) => [kind, 0])) as Record<ChangeKind, number>,
    flips: 0,
    byRule: {},
    byRole: {},
    examples: {},
  };
  const bump = (table: DecisionDiff['byRule'], key: string, kind: ChangeKind) => {
    const row = (table[key] ??= {});
    row[kind] = (row[kind] ?? 0) + 1;
  };
  for await (const entry of recorded) {
    diff.recorded++;
    if (!entry.job) {
      diff.notReplayable++;
      continue;
    }
    const after = replayed.get(entry.id);
    if (!after) {
      diff.missing++;
      continue;
    }
    diff.compared++;
    const before: Summary = { decision: entry.decision, status: entry.status, reasons: entry.reasons, rules: entry.rules };
    const now: Summary = { decision: after.decision, status: after.status, reasons: after.reasons, rules: after.rules ?? [] };
    const kind = changeOf(before, now);
    if (!kind) {
      diff.unchanged++;
      continue;
    }
    diff.changes[kind]++;
    if (FLIPS.includes(kind)) diff.flips++;
    // The rule to blame is on the side that stops the call.
    const stopping = now.decision !== 'allow' ? now.rules : before.rules;
    for (const rule of stopping.length > 0 ? stopping : ['(no rule)']) bump(diff.byRule, rule, kind);
    const roles = entry.job.subject?.roles ?? [];
    for (const role of roles.length > 0 ? roles : ['(no subject)']) bump(diff.byRole, role, kind);
    const examples = (diff.examples[kind] ??= []);
    if (examples.length < EXAMPLES_PER_KIND) examples.push({ id: entry.id, recorded: before, replayed: now });
  }
  return diff;
}

/** The diff as a few lines for a terminal. */
export function formatDiff(diff: DecisionDiff): string {
  const lines = [
    'decision diff',
    `  compared:        ${diff.compared} of ${diff.recorded} recorded (${diff.notReplayable} not replayable, ${diff.missing} without a replayed decision)`,
    `  unchanged:       ${diff.unchanged}`,
    `  flips:           ${diff.flips}`,
  ];
  for (const kind of CHANGE_KINDS) if (diff.changes[kind] > 0) lines.push(`  ${kind}: ${' '.repeat(Math.max(0, 16 - kind.length))}${diff.changes[kind]}`);
  const table = (title: string, rows: DecisionDiff['byRule']) => {
    const keys = Object.keys(rows);
    if (keys.length === 0) return;
    lines.push(`  by ${title}:`);
    for (const key of keys.sort()) lines.push(`    ${key}: ${Object.entries(rows[key]).map(([kind, n]) => `${kind} ${n}`).join(', ')}`);
  };
  table('rule', diff.byRule);
  table('role', diff.byRole);
  for (const [kind, examples] of Object.entries(diff.examples)) {
    lines.push(`  examples of ${kind}:`);
    for (const example of examples) {
      lines.push(`    ${example.id}: ${example.recorded.decision} (${example.recorded.reasons.join('; ') || 'no reason'}) → ${example.replayed.decision} (${example.replayed.reasons.join('; ') || 'no reason'})`);
    }
  }
  return `${lines.join('\n')}\n`;
}
