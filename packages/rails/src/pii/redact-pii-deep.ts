import type { PiiKind } from '@guardagent/schemas';
import { readToolArgs, type ArgText } from '../tool-args/read-tool-args';
import { redactJsonTexts } from '../tool-args/redact-json';
import { PII_KINDS, detectPii, detectPiiAfterLabel, redactFindings, type PiiFinding } from './detect-pii';

/**
 * `value` (any JSON) with the PII of the given kinds (all by default) replaced in every string,
 * key and integer of 7 digits or more, read as the input filters read tool-call arguments (a value
 * also after its key). Two keys that become the same are numbered (` #2`), never merged. Returns
 * `value` itself when nothing was found. For records (the decision log), not for calls: a tool's
 * arguments are redacted by the rails (Decision.redacted.args), which refuse such keys.
 */
export function redactPiiDeep<T>(value: T, kinds: readonly PiiKind[] = PII_KINDS): T {
  if (typeof value === 'string') return redactFindings(value, detectPii(value, kinds)) as T;
  const reading = readToolArgs(value, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  if (!reading.ok) return value;
  const found: Array<{ text: ArgText; findings: PiiFinding[] }> = [];
  for (const text of reading.texts) {
    const findings = text.kind === 'value' ? detectPiiAfterLabel(text.text, text.label, kinds) : detectPii(text.text, kinds);
    if (findings.length > 0) found.push({ text, findings });
  }
  return found.length === 0 ? value : (redactJsonTexts(value, found, 'number') as T);
}
