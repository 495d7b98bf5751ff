import { LRUCache } from 'lru-cache';
import { RE2JS } from 're2js';

/** Longest pattern a policy (or a CEL argument) may hand the engine. */
const MAX_TENANT_PATTERN_LENGTH = 4096;

/** A compiled pattern that matches in time linear in the input (RE2 semantics, via re2js). */
export interface LinearRegExp {
  test(text: string): boolean;
}

/** A pattern the linear-time engine refuses (RE2 has no backreferences or lookaround), with why. */
export class UnsupportedPatternError extends Error {
  readonly code = 'PATTERN_UNSUPPORTED';
  constructor(pattern: string, reason: string) {
    super(`pattern ${JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern)} is not supported: ${reason}`);
    this.name = 'UnsupportedPatternError';
  }
}

/** Compiled tenant patterns kept per process. */
const MAX_CACHED_PATTERNS = 1000;
const cache = new LRUCache<string, LinearRegExp>({ max: MAX_CACHED_PATTERNS });


/**
 * Compile a tenant-supplied pattern (argument-schema `pattern`, CEL `matches()`) for the
 * linear-time engine. V8's backtracking engine takes exponential time on patterns like
 * `^(a+)+$` (measured: 147 s for 41 characters); RE2 never does. Flags: `i`, `m`, `s`; `u` is
 * accepted and ignored (RE2 is Unicode-aware by default), `g`/`y` mean nothing for a test.
 */
export function compileLinearRegExp(pattern: string, flags = ''): LinearRegExp {
  const key = `${flags}/${pattern}`;
  const hit = cache.get(key);
  if (hit) return hit;
  if (pattern.length > MAX_TENANT_PATTERN_LENGTH) {
    throw new UnsupportedPatternError(pattern, `longer than ${MAX_TENANT_PATTERN_LENGTH} characters`);
  }
  let re2Flags = 0;
  for (const flag of flags) {
    if (flag === 'i') re2Flags |= RE2JS.CASE_INSENSITIVE;
    else if (flag === 'm') re2Flags |= RE2JS.MULTILINE;
    else if (flag === 's') re2Flags |= RE2JS.DOTALL;
    else if (flag !== 'u' && flag !== 'g' && flag !== 'y') throw new UnsupportedPatternError(pattern, `flag '${flag}'`);
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, re2Flags);
  } catch (error) {
    throw new UnsupportedPatternError(pattern, `${(error as Error).message} (RE2 syntax: no backreferences or lookaround)`);
  }
  const linear: LinearRegExp = { test: (text: string) => compiled.matcher(text).find() };
  cache.set(key, linear);
  return linear;
}
