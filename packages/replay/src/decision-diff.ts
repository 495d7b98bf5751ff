import { z } from 'zod';
import type { DecisionLogEntry } from '@guardagent/schemas';

/** Kinds of change between a recorded decision and its replay. */
export const CHANGE_KINDS = ['allow→deny', 'deny→allow', 'to pending', 'from pending', 'newly erroring', 'no longer erroring', 'reasons or rules changed'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];
/** The kinds that change what the agent may do. */
export const FLIPS: readonly ChangeKind[] = ['allow→deny', 'deny→allow', 'to pending', 'from pending'];

const EXAMPLES_PER_KIND = 3;

/** What a diff compares of a decision, recorded or replayed. */
export const DecisionSummarySchema = z.object({
  decision: z.string(),
  status: z.string(),
  reasons: z.array(z.string()),
  rules: z.array(z.string()),
});
export type DecisionSummary = z.infer<typeof DecisionSummarySchema>;

const KindCountsSchema = z.record(z.string(), z.number().int());

export const DecisionDiffSchema = z.object({
  /** Recorded entries read, and those compared with a replayed decision. */
  recorded: z.number().int(),
  compared: z.number().int(),
  /** Entries recorded without their job (too large), which no replay can decide. */
  notReplayable: z.number().int(),
  /** Replayable entries with no replayed decision (the replay did not finish, or its decisions expired). */
  missing: z.number().int(),
  unchanged: z.number().int(),
  changes: z.record(z.enum(CHANGE_KINDS), z.number().int()),
  flips: z.number().int(),
  /** Changes by the rule that fired on the side that denies or holds (else `(no rule)`), and by subject role. */
  byRule: z.record(z.string(), KindCountsSchema),
  byRole: z.record(z.string(), KindCountsSchema),
  examples: z.record(z.string(), z.array(z.object({ id: z.string(), recorded: DecisionSummarySchema, replayed: DecisionSummarySchema }))),
});
export type DecisionDiff = z.infer<typeof DecisionDiffSchema>;

/** What changed from `before` to `after`, or null when nothing did. */
export function changeOf(before: DecisionSummary, after: DecisionSummary): ChangeKind | null {
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

/** What a diff reads of a recorded entry (a DecisionLogEntry is one): never its job's text. */
export type RecordedDecision = Pick<DecisionLogEntry, 'id' | 'decision' | 'status' | 'reasons' | 'rules'> & { job: { subject?: { roles?: string[] } } | null };

/**
 * A decision diff built one recorded entry at a time, so that neither side has to be held whole:
 * it keeps counts and a few examples per kind.
 */
export class DecisionDiffBuilder {
  private readonly diff: DecisionDiff = {
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

  /** Count one recorded entry against its replayed decision (undefined: none arrived). */
  add(entry: RecordedDecision, replayed: DecisionSummary | undefined): void {
    const diff = this.diff;
    diff.recorded++;
    if (!entry.job) {
      diff.notReplayable++;
      return;
    }
    if (!replayed) {
      diff.missing++;
      return;
    }
    diff.compared++;
    const before: DecisionSummary = { decision: entry.decision, status: entry.status, reasons: entry.reasons, rules: entry.rules };
    const now: DecisionSummary = { decision: replayed.decision, status: replayed.status, reasons: replayed.reasons, rules: replayed.rules };
    const kind = changeOf(before, now);
    if (!kind) {
      diff.unchanged++;
      return;
    }
    diff.changes[kind]++;
    if (FLIPS.includes(kind)) diff.flips++;
    // The rule to blame is on the side that stops the call.
    const stopping = now.decision !== 'allow' ? now.rules : before.rules;
    for (const rule of stopping.length > 0 ? stopping : ['(no rule)']) bump(diff.byRule, rule, kind);
    const roles = entry.job.subject?.roles ?? [];
    for (const role of roles.length > 0 ? roles : ['(no subject)']) bump(diff.byRole, role, kind);
    diff.examples[kind] ??= [];
    const examples = diff.examples[kind];
    if (examples.length < EXAMPLES_PER_KIND) examples.push({ id: entry.id, recorded: before, replayed: now });
  }

  result(): DecisionDiff {
    return structuredClone(this.diff);
  }
}

function bump(table: DecisionDiff['byRule'], key: string, kind: ChangeKind): void {
  table[key] ??= {};
  const row = table[key];
  row[kind] = (row[kind] ?? 0) + 1;
}

/** The diff as a few lines for a terminal. */
export function formatDiff(diff: DecisionDiff): string {
  const lines = [
    'decision diff',
    `  compared:        ${diff.compared} of ${diff.recorded} recorded (${diff.notReplayable} not replayable, ${diff.missing} without a replayed decision)`,
    `  unchanged:       ${diff.unchanged}`,
    `  flips:           ${diff.flips}`,
  ];
  for (const kind of CHANGE_KINDS) if ((diff.changes[kind] ?? 0) > 0) lines.push(`  ${kind}: ${' '.repeat(Math.max(0, 16 - kind.length))}${diff.changes[kind]}`);
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
