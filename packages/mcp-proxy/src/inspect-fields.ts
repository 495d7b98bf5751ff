import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { detectInjection, detectPii } from '@guardagent/rails/detectors';
import type { JsonObject, PiiKind } from '@guardagent/client';
import type { CallGuard } from './call-guard';
import type { TextField } from './text-fields';

export type Inspection =
  | { outcome: 'pass'; redacted: string[] }
  /** `decided`: the guard (or a fixed rule) refused; false when it could not inspect at all (no decision, quota). */
  | { outcome: 'block'; reasons: string[]; decided: boolean };

/** What the rails' input filters look for, as far as the proxy knows the policy (to say where a finding is). */
export interface InputFilters {
  piiKinds?: readonly PiiKind[];
  injectionThreshold?: number;
}

/** Spent at most on saying where a refused text's finding is (the decision is the guard's either way). */
const ATTRIBUTION_BUDGET_MS = 250;
const MAX_PATHS_SHOWN = 6;

/** Lowercase letters only: a separator no detector reads as part of a number, a key or an instruction. */
function nonce(): string {
  return [...randomBytes(12)].map((b) => String.fromCharCode(97 + (b % 26))).join('');
}

export const listPaths = (paths: readonly string[]): string =>
  paths.length <= MAX_PATHS_SHOWN ? paths.join(', ') : `${paths.slice(0, MAX_PATHS_SHOWN).join(', ')} and ${paths.length - MAX_PATHS_SHOWN} more`;

/**
 * The fields where the rails' own detectors find what made the guard refuse the text, so the
 * reasons name the path. Best effort within a time budget; an empty list means "somewhere".
 */
function whereFound(fields: readonly TextField[], filters: InputFilters): string[] {
  const started = performance.now();
  const found: string[] = [];
  for (const field of fields) {
    if (performance.now() - started > ATTRIBUTION_BUDGET_MS) break;
    if (!field.text) continue;
    const injected = filters.injectionThreshold !== undefined && detectInjection(field.text).score >= filters.injectionThreshold;
    const pii = !injected && filters.piiKinds !== undefined && detectPii(field.text, filters.piiKinds).length > 0;
    if (injected || pii) found.push(field.path);
  }
  return found;
}

/**
 * Passes a set of fields through the guard as ONE text (one guard job): the fields joined by a
 * separator line with a random marker, so redactions map back to their fields. A redaction that
 * crosses a separator, or that touches a field that cannot be rewritten (a key, a number, a
 * tool's name), refuses the whole; so does a refusal of the text. Redactions are written back
 * through each field's `write` (and into its `text`). Reasons name the fields where the finding is.
 */
export async function inspectFields(
  guard: CallGuard,
  fields: readonly TextField[],
  what: { label: string; context: JsonObject },
): Promise<Inspection> {
  if (fields.length === 0) return { outcome: 'pass', redacted: [] };
  const marker = `<<${nonce()}>>`;
  // Its own line: no PII pattern reads across the letters, no line-based detector joins the fields.
  const separator = `\n${marker}\n`;
  if (fields.some((f) => f.text.includes(marker))) return { outcome: 'block', decided: true, reasons: [`${what.label} could not be inspected`] };
  const verdict = await guard.checkText(what.label, fields.map((f) => f.text).join(separator), what.context);
  if (verdict.outcome === 'block') {
    const paths = verdict.inspected ? whereFound(fields, guard.inputFilters) : [];
    const where = paths.length > 0 ? listPaths(paths) : 'no single field: in the fields read together';
    return { outcome: 'block', decided: verdict.inspected, reasons: verdict.reasons.map((reason) => (verdict.inspected ? `${reason} (in ${where})` : reason)) };
  }
  if (!verdict.redacted) return { outcome: 'pass', redacted: [] };
  const pieces = verdict.text.split(separator);
  if (pieces.length !== fields.length) {
    return { outcome: 'block', decided: true, reasons: [`${what.label}: something the guard redacted spans several fields, so it cannot be redacted in place`] };
  }
  const redacted: string[] = [];
  const unwritable: string[] = [];
  fields.forEach((field, i) => {
    if (pieces[i] === field.text) return;
    if (field.write) redacted.push(field.path);
    else unwritable.push(field.path);
  });
  if (unwritable.length > 0) {
    return { outcome: 'block', decided: true, reasons: [`${what.label}: the guard redacted text that cannot be rewritten in place (in ${listPaths(unwritable)})`] };
  }
  fields.forEach((field, i) => {
    if (pieces[i] === field.text) return;
    field.write?.(pieces[i]);
    field.text = pieces[i];
  });
  return { outcome: 'pass', redacted };
}
