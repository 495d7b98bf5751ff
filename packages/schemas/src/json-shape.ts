/** Deepest nesting accepted in job JSON (context, arguments, input): deeper values are refused, not recursed into. */
export const MAX_JSON_DEPTH = 64;

/**
 * Keys no job may carry. `JSON.parse` makes `__proto__` an own key, and copying such an object
 * (zod's record parsing, `Object.assign` in a tool) sets the prototype instead: the key vanishes
 * from what the guard sees while a tool may still inherit it. Refused, never dropped.
 */
export const FORBIDDEN_JSON_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export interface JsonShapeIssue {
  path: (string | number)[];
  message: string;
}

/**
 * The first forbidden key or over-deep nesting in a JSON value, with its path; null if none.
 * Iterative (an explicit stack), so hostile nesting cannot overflow the call stack here either.
 */
export function jsonShapeIssue(value: unknown, maxDepth = MAX_JSON_DEPTH): JsonShapeIssue | null {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (path.length >= maxDepth) return { path, message: `nested deeper than ${maxDepth} levels` };
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ value: v[i], path: [...path, i] });
      continue;
    }
    for (const key of Object.keys(v)) {
      if (FORBIDDEN_JSON_KEYS.has(key)) return { path: [...path, key], message: `the key '${key}' is not allowed` };
      stack.push({ value: (v as Record<string, unknown>)[key], path: [...path, key] });
    }
  }
  return null;
}
