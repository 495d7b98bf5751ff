import type { PiiFinding } from '../pii/detect-pii';
import { redactFindings } from '../pii/detect-pii';
import type { ArgSegment, ArgText } from './read-tool-args';

/** What redactJsonTexts answers when two keys of one object would become the same and it may not rename them. */
export const COLLIDING_KEYS = Symbol('colliding keys');

/**
 * A copy of `value` with each finding replaced by its placeholder, the texts located as
 * readToolArgs located them: values first (a number with PII becomes a string; a string root is
 * replaced whole), then keys, deepest first, each object keeping its keys' order. Two keys of one
 * object that would become the same: COLLIDING_KEYS (`refuse`), or the later one gets ` #2`,
 * ` #3`… (`number`).
 */
export function redactJsonTexts(value: unknown, found: ReadonlyArray<{ text: ArgText; findings: readonly PiiFinding[] }>, collisions: 'refuse' | 'number'): unknown {
  let copy = structuredClone(value);
  const keys: Array<{ text: ArgText; findings: readonly PiiFinding[] }> = [];
  for (const entry of found) {
    if (entry.text.kind === 'key') {
      keys.push(entry);
      continue;
    }
    const segments = entry.text.segments;
    const redacted = redactFindings(entry.text.text, entry.findings);
    if (segments.length === 0) {
      copy = redacted;
      continue;
    }
    const parent = containerAt(copy, segments.slice(0, -1));
    const last = segments[segments.length - 1]!;
    if (typeof last === 'number') (parent as unknown[])[last] = redacted;
    else (parent as Record<string, unknown>)[last.key] = redacted;
  }
  keys.sort((a, b) => b.text.segments.length - a.text.segments.length);
  for (const { text, findings } of keys) {
    const parent = containerAt(copy, text.segments.slice(0, -1)) as Record<string, unknown>;
    let renamed = redactFindings(text.text, findings);
    if (Object.hasOwn(parent, renamed)) {
      if (collisions === 'refuse') return COLLIDING_KEYS;
      let n = 2;
      while (Object.hasOwn(parent, `${renamed} #${n}`)) n++;
      renamed = `${renamed} #${n}`;
    }
    const entries = Object.entries(parent);
    for (const [key] of entries) delete parent[key];
    for (const [key, v] of entries) parent[key === text.text ? renamed : key] = v;
  }
  return copy;
}

function containerAt(root: unknown, segments: readonly ArgSegment[]): unknown {
  let at = root;
  for (const segment of segments) at = typeof segment === 'number' ? (at as unknown[])[segment] : (at as Record<string, unknown>)[segment.key];
  return at;
}
