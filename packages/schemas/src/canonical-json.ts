import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level, so equal values always give the same text (and
 * hash). The one implementation: policy digests, approval-token bindings and idempotency
 * bindings all use it.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    // undefined / functions have no JSON form; treat them like JSON.stringify does inside arrays.
    return text === undefined ? 'null' : text;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/** sha256 (hex) of a text. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
