/** Small, benchmark-agnostic text helpers for guard code that reads agent inputs and logs. */

export type ScalarValue = string | number | boolean | null;

/** "true"/"false" → booleans, numerals → numbers, "null"/"none" → null, anything else the trimmed string. */
export function parseScalar(text: string): ScalarValue {
  const t = text.trim();
  if (/^true$/i.test(t)) return true;
  if (/^false$/i.test(t)) return false;
  if (/^(null|none)$/i.test(t)) return null;
  if (/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t)) return Number(t);
  const quoted = /^(['"])(.*)\1$/.exec(t);
  return quoted ? quoted[2] : t;
}

/** The part of a `key: value` line before the separator: an optional list bullet, then the key. */
const KEY = /^\s*(?:[-*]\s*)?([A-Za-z_][\w .-]*)$/;

/** A lone CR, LS or PS inside a value: the line is not a key/value line (as when `.` read the value). */
const LINE_BREAK = /[\r\n\u2028\u2029]/;

/**
 * `key: value` (or `key = value`) lines → an object with typed values. Lines without a separator
 * are skipped; a repeated key keeps its first value (later lines cannot override earlier facts).
 */
export function parseKeyValueLines(text: string): Record<string, ScalarValue> {
  const out: Record<string, ScalarValue> = {};
  for (const line of String(text ?? '').split(/\r?\n/)) {
    // Split at the first separator and read each side on its own: one pattern over the whole line
    // (`key\s*[:=]\s*(.*?)\s*$`) backtracked quadratically on long runs of spaces.
    const separator = line.search(/[:=]/);
    if (separator < 0) continue;
    const key = KEY.exec(line.slice(0, separator).trimEnd());
    const value = line.slice(separator + 1).trim();
    if (!key || LINE_BREAK.test(value)) continue;
    if (!(key[1] in out)) out[key[1]] = parseScalar(value);
  }
  return out;
}

/**
 * The text after the first `startMarker` and before the next `endMarker` (or the end), trimmed;
 * null when the start marker is absent. Markers match literally and case-sensitively.
 */
export function extractSection(text: string, startMarker: string, endMarker?: string): string | null {
  const source = String(text ?? '');
  const start = source.indexOf(startMarker);
  if (start < 0) return null;
  const from = start + startMarker.length;
  const end = endMarker ? source.indexOf(endMarker, from) : -1;
  return (end < 0 ? source.slice(from) : source.slice(from, end)).trim();
}

/** The value of the first `Label: value` line (label matched case-insensitively), trimmed; null if absent. */
export function extractField(text: string, label: string): string | null {
  const wanted = label.trim().toLowerCase();
  for (const line of String(text ?? '').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i < 0) continue;
    if (line.slice(0, i).trim().toLowerCase() === wanted) return line.slice(i + 1).trim();
  }
  return null;
}

/** The requester's identity/role from an `Identity: X` line, lower-cased with single spaces; null if absent. */
export function parseIdentity(input: string): string | null {
  const value = extractField(input, 'identity');
  return value ? value.toLowerCase().replace(/[\s_]+/g, ' ').trim() : null;
}

/** Look a key up ignoring case, surrounding space and the difference between spaces, `_` and `-`. */
export function lookupKey<T>(record: Record<string, T>, key: string): T | undefined {
  const norm = (s: string): string => s.toLowerCase().replace(/[\s_-]+/g, ' ').trim();
  if (Object.hasOwn(record, key)) return record[key];
  const wanted = norm(key);
  const hit = Object.keys(record).find((k) => norm(k) === wanted);
  return hit === undefined ? undefined : record[hit];
}
