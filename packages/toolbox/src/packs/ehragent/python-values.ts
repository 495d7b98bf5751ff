/**
 * What the access analysis knows of a Python value: the tables its rows come from, and as much of
 * its content as constant folding can tell. Every argument the access decision depends on (a
 * table name, a FilterDB condition, a GetValue column, a query, a column subscript) must fold to
 * a constant; what does not is marked, never guessed.
 *
 * Parts of a string that cannot be known are written as one of two placeholder characters (from
 * Unicode's private use area, which Python code cannot hold as written: the parser reads source
 * text, and a literal `\ue000` escape decodes to the character, so a literal one is refused as
 * unknown too, see `hasPlaceholder`):
 * - DATA_PART: a value read from the database, a number, or a date. Its text holds no condition
 *   syntax of the code's making, so it may stand where a FilterDB condition takes a value;
 * - UNKNOWN_PART: anything else (a call the analysis does not follow, a parameter, a value
 *   computed from constants in a way it does not fold). It may stand nowhere that decides access.
 */
export const DATA_PART = '\uE000';
export const UNKNOWN_PART = '\uE001';

export interface Value {
  /** Tables whose rows the value holds (iterating it yields those rows). */
  tables: ReadonlySet<string>;
  /** A string's text, with DATA_PART / UNKNOWN_PART for the parts that cannot be known. */
  text?: string;
  /** A constant number (booleans as 1 and 0). */
  num?: number;
  /** A list, tuple or set whose elements are known one by one, in order. */
  items?: Value[];
  /** A dict whose keys are all constant strings or numbers (keyed by their text). */
  entries?: Map<string, Value>;
  /** A value that is one of these constant strings (a loop variable, a name bound in a loop). */
  alts?: string[];
  /**
   * What a value with none of the above is: a number, boolean or mask of unknown value
   * ('number'), a value read from the data or a date ('data'), or not known ('unknown').
   */
  opaque?: 'number' | 'data' | 'unknown';
}

const EMPTY: ReadonlySet<string> = new Set();
export const DATA: Value = { tables: EMPTY, opaque: 'data' };
export const NUMBER: Value = { tables: EMPTY, opaque: 'number' };
export const UNKNOWN: Value = { tables: EMPTY, opaque: 'unknown' };
export const textValue = (text: string): Value => ({ tables: EMPTY, text });
export const numValue = (num: number): Value => ({ tables: EMPTY, num });
export const rowsOf = (tables: ReadonlySet<string>): Value => (tables.size === 0 ? DATA : { tables, opaque: 'data' });

/** The most elements or characters a folded value may have; longer ones are not folded. */
export const MAX_FOLDED = 4_096;
/** The most alternatives a value may be one of. */
const MAX_ALTS = 16;

export const union = (values: readonly Value[]): Set<string> => new Set(values.flatMap((v) => [...v.tables]));

export function hasPlaceholder(text: string): boolean {
  return text.includes(DATA_PART) || text.includes(UNKNOWN_PART);
}

/** The constant string a value is, or undefined (not a string, or a part of it is not known). */
export function constText(v: Value | undefined): string | undefined {
  return v?.text !== undefined && !hasPlaceholder(v.text) ? v.text : undefined;
}

/** The constant strings a value may be: its text, or its alternatives; undefined when not all are known. */
export function constTexts(v: Value | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  if (v.alts) return v.alts;
  const text = constText(v);
  return text === undefined ? undefined : [text];
}

/** Whether a value is a number or boolean (known or not), which names no column. */
export function isNumber(v: Value): boolean {
  return v.num !== undefined || (v.opaque === 'number' && v.tables.size === 0 && v.text === undefined && !v.alts && !v.items && !v.entries);
}

/** Whether a value may hold anything the code made up (not a constant, nor read from the data, nor a number). */
export function isUnknown(v: Value): boolean {
  if (v.text !== undefined) return v.text.includes(UNKNOWN_PART);
  if (v.num !== undefined || v.alts) return false;
  if (v.items) return v.items.some(isUnknown);
  if (v.entries) return [...v.entries.values()].some(isUnknown);
  return v.opaque === 'unknown' || (v.opaque === undefined && v.tables.size === 0);
}

function pythonNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : String(n);
}

/** Python's repr of a string (quotes chosen as Python chooses them). */
function reprString(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const body = text.replace(/\\/g, '\\\\').replace(quote === "'" ? /'/g : /"/g, `\\${quote}`);
  return `${quote}${body}${quote}`;
}

/** `repr(v)` as far as it is known (str() of a container uses its elements' repr). */
export function reprOf(v: Value): string {
  if (v.text !== undefined) return reprString(v.text);
  return strOf(v);
}

/** `str(v)` as far as it is known: placeholders for the parts that are not. */
export function strOf(v: Value): string {
  if (v.text !== undefined) return v.text;
  if (v.num !== undefined) return pythonNumber(v.num);
  if (v.items) return `[${v.items.map(reprOf).join(', ')}]`;
  if (v.entries) return `{${[...v.entries].map(([k, x]) => `${reprString(k)}: ${reprOf(x)}`).join(', ')}}`;
  if (v.alts) return UNKNOWN_PART;
  return isUnknown(v) ? UNKNOWN_PART : DATA_PART;
}

/** The elements of iterating `v`, when known one by one. */
export function elementsOf(v: Value): Value[] | undefined {
  if (v.items) return v.items;
  if (v.entries) return [...v.entries.keys()].map(textValue);
  const text = constText(v);
  if (text !== undefined && text.length <= MAX_FOLDED) return [...text].map(textValue);
  return undefined;
}

/** One value standing for any of `values`: the same constant, one of several constants, rows, data, or unknown. */
export function joinValues(values: readonly Value[]): Value {
  if (values.length === 0) return UNKNOWN;
  if (values.length === 1) return values[0]!;
  const tables = union(values);
  const texts: string[] = [];
  let allTexts = true;
  for (const v of values) {
    const options = constTexts(v);
    if (options) texts.push(...options);
    else allTexts = false;
  }
  if (allTexts) {
    const distinct = [...new Set(texts)];
    if (distinct.length === 1) return { tables, text: distinct[0] };
    if (distinct.length <= MAX_ALTS) return { tables, alts: distinct };
    return { tables, opaque: 'unknown' };
  }
  if (values.every((v) => v.num !== undefined && v.num === values[0]!.num)) return { tables, num: values[0]!.num };
  if (values.some(isUnknown) || values.some((v) => v.text !== undefined || v.alts !== undefined)) return { tables, opaque: 'unknown' };
  if (values.every(isNumber)) return { tables, opaque: 'number' };
  return { tables, opaque: 'data' };
}

/** The element of iterating `v` (a loop variable): rows of its tables, one of its elements, or data or unknown. */
export function elementOf(v: Value): Value {
  if (v.tables.size > 0 && !v.items) return rowsOf(v.tables);
  const elements = elementsOf(v);
  if (elements) return joinValues(elements);
  if (v.alts) return UNKNOWN;
  if (isNumber(v)) return NUMBER;
  return isUnknown(v) ? UNKNOWN : DATA;
}

const FORMAT_SPEC = /^(?:(.)?([<>=^]))?([-+ ])?(z)?(#)?(0)?(\d+)?([,_])?(?:\.(\d+))?([bcdeEfFgGnosxX%])?$/s;

/**
 * `format(v, spec)` with a conversion (`!r`, `!s`, `!a`) first, as far as it is known. A
 * precision cuts a string (`'{:.4}'.format('costly')` is 'cost'); a `c`, `x`, `o`, `b` or `n`
 * type turns a number into letters, so on a number not known it is unknown.
 */
export function formatValue(v: Value, format: string): string {
  let spec = format;
  let value = v;
  const conversion = /^!([rsa])/.exec(spec);
  if (conversion) {
    value = conversion[1] === 's' ? textValue(strOf(v)) : textValue(reprOf(v));
    spec = spec.slice(2);
  }
  if (spec.startsWith(':')) spec = spec.slice(1);
  if (spec === '') return strOf(value);
  // A nested field in the spec (`{:{w}}`) is not followed.
  if (spec.includes('{')) return UNKNOWN_PART;
  const m = FORMAT_SPEC.exec(spec);
  if (!m) return UNKNOWN_PART;
  const [, fill = ' ', align, , , , , width, , precision, type] = m;
  let text: string;
  if (type !== undefined && 'cxXobn'.includes(type)) {
    if (value.num === undefined || !Number.isInteger(value.num)) return UNKNOWN_PART;
    const n = value.num;
    if (type === 'c') text = n >= 0 && n <= 0x10ffff ? String.fromCodePoint(n) : UNKNOWN_PART;
    else if (type === 'x') text = n.toString(16);
    else if (type === 'X') text = n.toString(16).toUpperCase();
    else if (type === 'o') text = n.toString(8);
    else if (type === 'b') text = n.toString(2);
    else text = String(n);
  } else if (value.text !== undefined) {
    text = precision !== undefined && type === undefined ? [...value.text].slice(0, Number(precision)).join('') : value.text;
  } else {
    text = strOf(value);
  }
  const pad = width !== undefined ? Math.min(Number(width), MAX_FOLDED) - [...text].length : 0;
  if (pad > 0) {
    const filler = (n: number) => fill.repeat(n);
    if (align === '<') text += filler(pad);
    else if (align === '^') text = filler(Math.floor(pad / 2)) + text + filler(pad - Math.floor(pad / 2));
    else text = filler(pad) + text;
  }
  return text;
}

/**
 * `'%s_%s' % ('a', x)` → 'a_' + x's text, each conversion consuming one value; `%c` turns a
 * number into a character, `%%` is a percent sign. Flags and widths are read and applied as
 * str() (they pad, they do not change what a name says), except a precision, which cuts.
 */
export function percentFormat(template: string, values: Value[]): string {
  let next = 0;
  return template.replace(/%(?:\(([^()]{0,80})\))?([-+ #0]{0,5})(\d{0,4})(?:\.(\d{0,4}))?([diouxXeEfFgGcrsa%])/g, (_m, key: string | undefined, _flags, _width, precision: string | undefined, type: string) => {
    if (type === '%') return '%';
    const value = key !== undefined ? UNKNOWN : (values[next++] ?? UNKNOWN);
    if (type === 'c') return formatValue(value, 'c');
    if (type === 'r' || type === 'a') return reprOf(value);
    if ('xXo'.includes(type)) return formatValue(value, type);
    const text = strOf(value);
    return type === 's' && precision !== undefined && value.text !== undefined ? [...text].slice(0, Number(precision)).join('') : text;
  });
}

/** Python's index into a sequence of `length` (negative from the end), or undefined when out of range. */
export function pythonIndex(index: number, length: number): number | undefined {
  if (!Number.isInteger(index)) return undefined;
  const at = index < 0 ? length + index : index;
  return at >= 0 && at < length ? at : undefined;
}

/** `seq[start:stop:step]` for known bounds (null where left out), Python's rules. */
export function pythonSlice<T>(seq: readonly T[], start: number | null, stop: number | null, step: number | null): T[] | undefined {
  const s = step ?? 1;
  if (s === 0 || !Number.isInteger(s)) return undefined;
  const n = seq.length;
  const clamp = (x: number, low: number, high: number) => Math.max(low, Math.min(high, x));
  const norm = (x: number | null, fallback: number, low: number, high: number) => (x === null ? fallback : clamp(x < 0 ? x + n : x, low, high));
  const out: T[] = [];
  if (s > 0) {
    for (let i = norm(start, 0, 0, n), end = norm(stop, n, 0, n); i < end; i += s) out.push(seq[i]!);
  } else {
    for (let i = norm(start, n - 1, -1, n - 1), end = norm(stop, -1, -1, n - 1); i > end; i += s) out.push(seq[i]!);
  }
  return out;
}

/** Methods of a constant string that the analysis folds, given constant string or number arguments. */
export function stringMethod(receiver: string, method: string, args: Array<string | number | undefined>): string | string[] | undefined {
  const [a, b] = args;
  const str = (x: string | number | undefined) => (typeof x === 'string' ? x : undefined);
  const chars = (set: string | undefined) => (c: string) => (set === undefined ? /\s/.test(c) : set.includes(c));
  const trimStart = (t: string, set: string | undefined) => {
    let i = 0;
    while (i < t.length && chars(set)(t[i]!)) i++;
    return t.slice(i);
  };
  const trimEnd = (t: string, set: string | undefined) => {
    let i = t.length;
    while (i > 0 && chars(set)(t[i - 1]!)) i--;
    return t.slice(0, i);
  };
  switch (method) {
    case 'lower':
    case 'casefold':
      return receiver.toLowerCase();
    case 'upper':
      return receiver.toUpperCase();
    case 'swapcase':
      return [...receiver].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
    case 'capitalize':
      return receiver.charAt(0).toUpperCase() + receiver.slice(1).toLowerCase();
    case 'title':
      return receiver.toLowerCase().replace(/(^|[^a-z])([a-z])/g, (_m, p: string, c: string) => p + c.toUpperCase());
    case 'strip':
      return args.length > 0 && str(a) === undefined && a !== undefined ? undefined : trimEnd(trimStart(receiver, str(a)), str(a));
    case 'lstrip':
      return trimStart(receiver, str(a));
    case 'rstrip':
      return trimEnd(receiver, str(a));
    case 'replace': {
      if (str(a) === undefined || str(b) === undefined) return undefined;
      const count = typeof args[2] === 'number' ? args[2] : -1;
      if (str(a) === '') return undefined;
      let out = '';
      let rest = receiver;
      let done = 0;
      for (let at = rest.indexOf(a as string); at !== -1 && (count < 0 || done < count); at = rest.indexOf(a as string)) {
        out += rest.slice(0, at) + (b as string);
        rest = rest.slice(at + (a as string).length);
        done++;
      }
      const result = out + rest;
      return result.length <= MAX_FOLDED ? result : undefined;
    }
    case 'removeprefix':
      return str(a) !== undefined && receiver.startsWith(a as string) ? receiver.slice((a as string).length) : receiver;
    case 'removesuffix':
      return str(a) !== undefined && (a as string) !== '' && receiver.endsWith(a as string) ? receiver.slice(0, -(a as string).length) : receiver;
    case 'split':
      if (a === undefined) return receiver.split(/\s+/).filter((x) => x !== '');
      return str(a) ? receiver.split(a as string) : undefined;
    case 'zfill':
    case 'ljust':
    case 'rjust':
    case 'center':
      // Padding adds spaces or zeros around the text, never other letters (a fill character is read only when constant).
      if (typeof a !== 'number') return undefined;
      if (a > MAX_FOLDED) return undefined;
      return method === 'zfill' ? receiver.padStart(a, '0') : method === 'ljust' ? receiver.padEnd(a, str(b) ?? ' ') : receiver.padStart(a, str(b) ?? ' ');
    case 'encode':
    case 'decode':
      return receiver;
    default:
      return undefined;
  }
}

/** Methods that return their receiver's kind of text: data stays data, the known stays known (placeholders kept). */
export const CASE_METHODS = new Set(['lower', 'upper', 'casefold', 'strip', 'lstrip', 'rstrip']);
