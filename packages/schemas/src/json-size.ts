/**
 * Whether a JSON value's text would exceed `limit` characters, without building the text: string
 * lengths, key lengths and a few characters per number, literal and separator are summed, and the
 * walk stops as soon as the sum passes the limit (so a 10-million-character value costs no more
 * than a 2-million one). Close to, never above, the length of `JSON.stringify(value)`.
 */
export function jsonCharsOver(value: unknown, limit: number): boolean {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') total += v.length + 2;
    else if (v === null || typeof v === 'boolean') total += 4;
    else if (typeof v === 'number') total += 1;
    else if (Array.isArray(v)) {
      total += 2 + Math.max(0, v.length - 1);
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else if (typeof v === 'object' && v !== undefined) {
      const keys = Object.keys(v);
      total += 2 + Math.max(0, keys.length - 1);
      for (const key of keys) {
        total += key.length + 3;
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
    if (total > limit) return true;
  }
  return false;
}
