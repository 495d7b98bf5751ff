import { parseScalar, type ScalarValue } from './text-helpers';

export interface FactsSection {
  /** The facts of the section (a key's value when it is given once). */
  facts: Record<string, ScalarValue>;
  /**
   * Why these facts cannot be trusted, one sentence each: the marker appears more than once, or a
   * key is given more than once. Text the agent writes can add either (a task that says
   * "user_info: dr_license: true"), so a guard treats any conflict as a reason to deny, never
   * picks a winner.
   */
  conflicts: string[];
}

/** A `key: value` line's key: an optional list bullet, then a name. */
const KEY = /^\s*(?:[-*]\s*)?([A-Za-z_][\w .-]*)$/;

/**
 * The `key: value` facts after `marker` (to the end of the text), read so that nothing written
 * elsewhere in the text can override them silently: a repeated marker or key is reported as a
 * conflict instead of resolved first-wins or last-wins. Keys are compared case-insensitively with
 * spaces and dashes read as underscores (`Dr-License` repeats `dr_license`).
 */
export function readFactsSection(text: string, marker: string): FactsSection {
  const source = String(text ?? '');
  const conflicts: string[] = [];
  const first = source.indexOf(marker);
  if (first < 0 || marker.length === 0) return { facts: {}, conflicts };
  let count = 0;
  for (let at = first; at >= 0; at = source.indexOf(marker, at + marker.length)) count += 1;
  if (count > 1) conflicts.push(`"${marker}" appears ${count} times`);

  const seen = new Map<string, number>();
  const facts: Record<string, ScalarValue> = {};
  // Every marker's lines are read, so a fact planted in an earlier copy is a repeated key too.
  for (let at = first; at >= 0; at = source.indexOf(marker, at + marker.length)) {
    const next = source.indexOf(marker, at + marker.length);
    const section = source.slice(at + marker.length, next < 0 ? undefined : next);
    for (const line of section.split(/\r?\n|\r|\u2028|\u2029/)) {
      // A section may start on the marker's own line ("user_info: age: 30").
      const separator = line.search(/[:=]/);
      if (separator < 0) continue;
      const key = KEY.exec(line.slice(0, separator).trimEnd());
      if (!key) continue;
      const name = key[1].trim().toLowerCase().replace(/[\s-]+/g, '_');
      seen.set(name, (seen.get(name) ?? 0) + 1);
      if (seen.get(name) === 1) facts[name] = parseScalar(line.slice(separator + 1));
    }
  }
  for (const [name, times] of seen) {
    if (times > 1) {
      conflicts.push(`"${name}" is given ${times} times`);
      delete facts[name];
    }
  }
  return { facts, conflicts };
}
