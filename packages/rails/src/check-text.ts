import { performance } from 'node:perf_hooks';
import type { PiiKind } from '@guardagent/schemas';
import { detectPii, redactFindings } from './pii/detect-pii';
import { detectInjection } from './injection/detect-injection';
import type { CompiledPiiFilter } from './compiled-rails';
import type { RailsOutcome } from './rails-outcome';

export const PII_NAMES: Readonly<Record<PiiKind, string>> = {
  email: 'an email address',
  phone: 'a phone number',
  card: 'a payment card number',
  iban: 'an IBAN',
  ssn: 'a US social security number',
  ip: 'an IP address',
  secret: 'a secret (API key, token or private key)',
};

/**
 * The rails' time budget for one job, ms. Every detector is linear and texts are capped at
 * 2,000,000 characters (measured worst case ≈ 0.4 s per capped text), so this is a safety net:
 * past it the remaining texts are not scanned and the job is denied (rule `rails.deadline`).
 * It holds the executor's event loop, so it stays under half the default queue lock (6 s): a
 * job's lock is renewed every 3 s, and a longer hold would let another executor take it over.
 */
export const RAILS_DEADLINE_MS = 2000;

/** CheckState's findings as plain data. */
export interface CheckSnapshot {
  deny: boolean;
  pending: boolean;
  reasons: string[];
  rules: string[];
  redacted: NonNullable<RailsOutcome['redacted']>;
  hasRedaction: boolean;
  findings: RailsOutcome['findings'];
}

/** Accumulates what the pure checks found; turned into a RailsOutcome at the end. */
export class CheckState {
  private readonly deadlineAt: number;

  constructor(deadlineMs = RAILS_DEADLINE_MS) {
    this.deadlineAt = performance.now() + deadlineMs;
  }

  /** True (and the job denied) once the budget is spent: callers stop scanning. */
  pastDeadline(): boolean {
    if (performance.now() <= this.deadlineAt) return false;
    if (!this.rules.includes('rails.deadline')) {
      this.deny = true;
      this.fire('rails.deadline', 'the rails could not finish within their time budget; denied');
    }
    return true;
  }

  deny = false;
  pending = false;
  readonly reasons: string[] = [];
  readonly rules: string[] = [];
  redacted: NonNullable<RailsOutcome['redacted']> = {};
  hasRedaction = false;
  readonly findings: RailsOutcome['findings'] = { pii: [] };

  /** What the checks found, as plain data (to cross a thread boundary; see CheckState.from). */
  snapshot(): CheckSnapshot {
    const { deny, pending, reasons, rules, redacted, hasRedaction, findings } = this;
    return { deny, pending, reasons, rules, redacted, hasRedaction, findings };
  }

  /** A state holding what another thread's checks found, with a fresh budget for what is left. */
  static from(snapshot: CheckSnapshot, deadlineMs?: number): CheckState {
    const state = new CheckState(deadlineMs);
    state.deny = snapshot.deny;
    state.pending = snapshot.pending;
    state.reasons.push(...snapshot.reasons);
    state.rules.push(...snapshot.rules);
    state.redacted = snapshot.redacted;
    state.hasRedaction = snapshot.hasRedaction;
    state.findings.pii.push(...snapshot.findings.pii);
    if (snapshot.findings.injection) state.findings.injection = snapshot.findings.injection;
    return state;
  }

  fire(rule: string, reason?: string): void {
    if (!this.rules.includes(rule)) this.rules.push(rule);
    if (reason !== undefined && !this.reasons.includes(reason)) this.reasons.push(reason);
  }
}

/** PII filter over one text at one boundary. Redacted text goes to `state.redacted[where]`. */
export function checkPii(
  text: string,
  where: 'input' | 'output' | 'message',
  boundary: 'input' | 'output',
  filter: CompiledPiiFilter | undefined,
  state: CheckState,
): void {
  if (!filter || !text || state.pastDeadline()) return;
  const found = detectPii(text, filter.kinds);
  if (found.length === 0) return;
  const counts = new Map<PiiKind, number>();
  // The decodings that revealed a kind only encoded ("a payment card number, in base64").
  const revealedBy = new Map<PiiKind, Set<string>>();
  for (const f of found) {
    counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
    if (f.decoded) revealedBy.set(f.kind, (revealedBy.get(f.kind) ?? new Set()).add(f.decoded));
  }
  const label = where === 'message' ? `${boundary} message` : boundary;
  for (const [kind, count] of counts) {
    state.findings.pii.push({ where, kind, count });
    const rule = `${boundary}.pii.${kind}`;
    const via = revealedBy.get(kind);
    const what = via ? `${PII_NAMES[kind]} (written in ${[...via].join(', ')})` : PII_NAMES[kind];
    if (filter.action === 'deny') {
      state.deny = true;
      state.fire(rule, `${label} contains ${what}`);
    } else if (filter.action === 'redact') {
      state.fire(rule, `${label}: ${what} redacted`);
    } else {
      state.fire(rule, `${label} contains ${what} (logged)`);
    }
  }
  if (filter.action === 'redact') {
    state.redacted[where] = redactFindings(text, found);
    state.hasRedaction = true;
  }
}

/** Prompt-injection filter over the input-boundary texts; the highest score counts. */
export function checkInjection(texts: readonly string[], threshold: number | undefined, state: CheckState): void {
  if (threshold === undefined) return;
  let best: { score: number; signals: string[] } | undefined;
  for (const text of texts) {
    if (!text || state.pastDeadline()) continue;
    const result = detectInjection(text);
    if (!best || result.score > best.score) best = result;
  }
  if (!best) return;
  state.findings.injection = best;
  if (best.score > 0 && best.score >= threshold) {
    state.deny = true;
    state.fire(
      'input.injection',
      `input looks like a prompt injection (score ${best.score} >= ${threshold}: ${best.signals.join(', ')})`,
    );
  }
}
