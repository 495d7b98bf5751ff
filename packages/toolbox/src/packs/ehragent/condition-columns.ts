import { normalizeColumn } from './access-recorder';

const AGGREGATES = new Set([
  'max', 'min', 'mean', 'avg', 'average', 'sum', 'count', 'list', 'len', 'length', 'std', 'median', 'first', 'last',
  'unique', 'distinct', 'set', 'mode', 'total', 'var', 'nunique', 'sorted', 'sort', 'asc', 'desc',
]);

const CONDITION_OPERATOR =
  /^\s*((?:[A-Za-z_][\w.]*\s*,\s*)*[A-Za-z_][\w.]*)\s*(?:>=|<=|!=|==|=|>|<|\bnot\s+in\b|\bin\b|\bnot\s+like\b|\blike\b|\bis\s+not\b|\bis\b|\bbetween\b)/i;
const EXTREMUM = /^\s*(?:max|min)\s*\(\s*([A-Za-z_][\w.]*)\s*\)\s*$/i;

/** A FilterDB condition's parts: the conditions joined by `||` or `&&`. */
export function conditionParts(condition: string): string[] {
  return condition.split(/\|\||&&/);
}

/**
 * Whether every character of `part` not known to the analysis (see python-values: a value of the
 * data) stands after the part's operator, where a value goes: `patientunitstayid={}` with a
 * patient's id, not `{}=3` or `max({})`.
 */
export function dataOnlyInValue(part: string): boolean {
  const match = CONDITION_OPERATOR.exec(part);
  if (!match) return false;
  const first = part.search(/[\uE000\uE001]/);
  return first === -1 || first >= match[0].length;
}

/**
 * Columns named by a FilterDB condition string: conditions joined by `||` or `&&`, each
 * `column <op> value` (=, !=, >, <, >=, <=, in, like, is) or `max(column)` / `min(column)`. Values may
 * hold anything (spaces, quotes, commas, parentheses); only the text before the operator is read.
 * A leading `table, ` (EHRAgent's documented "admissions, SUBJECT_ID=1" form) is ignored.
 */
export function conditionColumns(condition: string): string[] {
  const out: string[] = [];
  for (const part of conditionParts(condition)) {
    const extremum = EXTREMUM.exec(part);
    const match = extremum ?? CONDITION_OPERATOR.exec(part);
    if (!match) continue;
    const name = match[1].split(',').pop()!;
    const column = normalizeColumn(name);
    if (column && column !== '*') out.push(column);
  }
  return [...new Set(out)];
}

/** Columns named by a GetValue argument such as `labresult, max` or `patientunitstayid`. */
export function getValueColumns(argument: string): string[] {
  const out: string[] = [];
  for (const part of argument.split(',')) {
    const word = part.trim().toLowerCase();
    if (!word || AGGREGATES.has(word)) continue;
    const column = normalizeColumn(word);
    if (column) out.push(column);
  }
  return [...new Set(out)];
}
