import { EICU_SCHEMA } from './eicu-schema';

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
const OPENING_QUOTES = '`"\'[';
const CLOSING_QUOTES = '`"\']';

/**
 * `text` without the quote and bracket characters around a name (`"Lab"`, `[age]`, `'x'`). A scan
 * from each end: the pattern it replaces, `/^[`"'[]+|[`"'\]]+$/g`, retried its unanchored second
 * half at every character of a long run of `]`, which took quadratic time.
 */
function stripQuotes(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && OPENING_QUOTES.includes(text[start])) start++;
  while (end > start && CLOSING_QUOTES.includes(text[end - 1])) end--;
  return text.slice(start, end);
}

/** A table name as written in code (`'Lab '`, `"lab"`) → its canonical lower-case form, or null. */
export function normalizeTable(text: string): string | null {
  const t = stripQuotes(text.trim()).trim().toLowerCase();
  return IDENTIFIER.test(t) ? t : null;
}

/** An aggregate call around a column (`max(x)`, `count( distinct x )`): the text inside the parentheses. */
const AGGREGATE = /^[a-z_]+\s*\(([^()]*)\)$/;

/** A column reference (`Lab.LabName`, `max(labresulttime)`, `"age"`) → lower-case column name, or null. */
export function normalizeColumn(text: string): string | null {
  let t = text.trim().toLowerCase();
  const agg = AGGREGATE.exec(t);
  // Spaces and DISTINCT trimmed outside the pattern: `\(\s*(?:distinct\s+)?([^()]*?)\s*\)` backtracked
  // quadratically on long runs of spaces.
  if (agg) t = agg[1].trimStart().replace(/^distinct\s+/, '').trimEnd();
  t = stripQuotes(t).trim();
  if (t === '*') return '*';
  const dot = t.lastIndexOf('.');
  if (dot >= 0) t = t.slice(dot + 1);
  return IDENTIFIER.test(t) ? t : null;
}

/** Collects table → columns reads. */
export class AccessRecorder {
  private readonly reads = new Map<string, Set<string>>();

  touch(table: string): void {
    if (!this.reads.has(table)) this.reads.set(table, new Set());
  }

  /**
   * Record an explicit column reference (FilterDB/GetValue/SQL position). For a known eICU table only
   * its real columns count (a misspelt column reads nothing: EHRAgent's call fails); for an unknown
   * table every identifier counts.
   */
  column(table: string, column: string | null): void {
    this.touch(table);
    if (!column) return;
    const known = EICU_SCHEMA[table];
    if (known && column !== '*' && !known.includes(column)) return;
    this.reads.get(table)!.add(column);
  }

  /**
   * Record a string that may or may not be a column (a subscript key, an attribute, a method
   * argument): it counts only when it is a column of a known eICU table, or of an unknown table.
   */
  maybeColumn(table: string, text: string): boolean {
    const column = normalizeColumn(text);
    if (!column || column === '*') return false;
    const known = EICU_SCHEMA[table];
    if (known && !known.includes(column)) return false;
    if (!known && !/^[a-z_]\w*$/.test(text.trim())) return false;
    this.column(table, column);
    return true;
  }

  result(): Record<string, string[]> {
    return Object.fromEntries(
      [...this.reads].sort(([a], [b]) => a.localeCompare(b)).map(([t, cols]) => [t, [...cols].sort()]),
    );
  }
}
