import { parsePython } from './parse-python';
import type { Expr, Stmt } from './python-tree';
import { AccessRecorder, normalizeTable } from './access-recorder';
import { conditionColumns, conditionParts, dataOnlyInValue, getValueColumns } from './condition-columns';
import { sqlAccess } from './sql-access';
import { CodeUnanalysableError } from './code-unanalysable-error';
import {
  CASE_METHODS, DATA, DATA_PART, isNumber, NUMBER, UNKNOWN, UNKNOWN_PART, constText, constTexts, elementOf, elementsOf, formatValue, hasPlaceholder, isUnknown,
  joinValues, MAX_FOLDED, numValue, percentFormat, pythonIndex, pythonSlice, reprOf, rowsOf, stringMethod, strOf, textValue, union, type Value,
} from './python-values';

const EMPTY_TABLES: ReadonlySet<string> = new Set();

/** Builtins whose result still holds the rows of their arguments (iterating them yields those rows). */
const PASS_THROUGH = new Set(['list', 'sorted', 'reversed', 'enumerate', 'zip', 'iter', 'filter', 'tuple', 'copy', 'deepcopy', 'concat', 'dataframe', 'next', 'set', 'frozenset']);

/** EHRAgent's database functions: used other than by a direct call (aliased, passed along), their reads cannot be followed. */
const DATABASE_FUNCTIONS = new Set(['loaddb', 'filterdb', 'getvalue', 'sqlinterpreter']);

/** Builtins that run code or reach a function by a name computed at run time. */
const DYNAMIC = new Set(['eval', 'exec', 'execfile', 'compile', '__import__', 'getattr', 'setattr', 'globals', 'locals', 'vars', '__builtins__', 'import_module', 'importlib', '__getattribute__', '__getitem__', 'attrgetter', 'itemgetter', 'methodcaller']);

/**
 * Calls that read files past the database functions: the builtin `open`, and pandas' and numpy's
 * file readers (the modules themselves may be imported for their arithmetic).
 */
const FILE_READERS = new Set([
  'open', 'read_csv', 'read_excel', 'read_json', 'read_parquet', 'read_table', 'read_pickle', 'read_feather', 'read_hdf', 'read_fwf',
  'read_html', 'read_xml', 'read_orc', 'read_sas', 'read_spss', 'read_stata', 'read_clipboard', 'loadtxt', 'genfromtxt', 'fromfile',
  'memmap', 'fromregex',
]);
/** Names numpy is imported as, whose `load` reads a file too (`np.load('cost.npy')`). */
const NUMPY_NAMES = new Set(['np', 'numpy']);

/**
 * Calls whose result is a number, a date or a value of the data, never text the code spells out:
 * EHRAgent's Calendar, the numeric builtins, and the arithmetic and date functions of math,
 * statistics, numpy, pandas and datetime. The result of any other call the analysis does not
 * fold is unknown.
 */
const DATA_CALLS = new Set([
  'calendar', 'mean', 'median', 'mode', 'std', 'stdev', 'var', 'variance', 'average', 'percentile', 'quantile', 'floor', 'ceil', 'sqrt', 'log', 'exp', 'isnan',
  'nanmean', 'nanmax', 'nanmin', 'nansum', 'argmax', 'argmin', 'count_nonzero', 'to_datetime', 'to_numeric', 'timedelta', 'datetime', 'date',
  'strptime', 'now', 'today', 'fromisoformat', 'fromtimestamp', 'total_seconds', 'days', 'isna', 'isnull', 'notna', 'notnull', 'shape', 'size',
  'fsum', 'prod', 'trunc', 'fabs', 'gcd', 'lcm', 'hypot', 'nunique', 'value_counts', 'describe', 'idxmax', 'idxmin', 'cumsum', 'diff',
]);
/** Calls whose result is a number (or a boolean, or a range of numbers). */
const NUMBER_CALLS = new Set([
  'len', 'int', 'float', 'abs', 'round', 'sum', 'bool', 'range', 'divmod', 'pow', 'hash', 'id', 'isinstance', 'callable', 'any', 'all', 'floor',
  'ceil', 'sqrt', 'log', 'exp', 'isnan', 'fsum', 'prod', 'trunc', 'fabs', 'gcd', 'lcm', 'hypot', 'count', 'count_nonzero', 'nunique', 'argmax',
  'argmin', 'total_seconds', 'isdigit', 'isnumeric', 'startswith', 'endswith', 'find', 'index', 'isna', 'isnull', 'notna', 'notnull',
]);

/** Methods whose result on a value read from the data is still such a value (not text the code spells out). */
const DATA_METHODS = new Set([
  ...CASE_METHODS, 'title', 'capitalize', 'strftime', 'isoformat', 'date', 'time', 'timestamp', 'item', 'tolist', 'values', 'split', 'copy', 'round',
  'astype', 'to_list', 'tolist', 'keys', 'items', 'total_seconds', 'get', 'year', 'month', 'day', 'mean', 'max', 'min', 'sum', 'count', 'isdigit',
  'isnumeric', 'startswith', 'endswith', 'find', 'index', 'head', 'tail', 'unique', 'first', 'last',
]);
/** Names that are constants of the language. */
const CONSTANT_NAMES: Record<string, Value> = { True: numValue(1), False: numValue(0), None: NUMBER };

/** List/set/dict methods that add their arguments to the receiver. */
const MUTATORS = new Set(['append', 'extend', 'insert', 'add', 'update', 'appendleft', 'extendleft', 'setdefault']);

/** Most values folded in one analysis (comprehension elements evaluated one by one count each). */
const MAX_STEPS = 200_000;
/** Most elements a comprehension is folded over. */
const MAX_COMPREHENSION = 256;

function calleeName(func: Expr): string | null {
  if (func.kind === 'name') return func.id;
  if (func.kind === 'attr') return func.name;
  return null;
}

/** `{{`, `}}`, or a field `{name.attr[key]!c:spec}` (the spec without braces). */
const FORMAT_FIELD = /\{\{|\}\}|\{([A-Za-z_0-9]*)((?:\.[A-Za-z_]\w*|\[[^\]{}]*\])*)((?:![rsa])?(?::[^{}]*)?)\}/g;

/** `'{}-{}'.format('a', x)` → 'a-' and x's text: constant arguments filled in, the others as placeholders. */
function formatTemplate(template: string, args: Value[], kwargs: Array<{ name: string; value: Value }>): string {
  // A brace that opens no field this reads (a nested field `{:{w}}`, a stray `}`): not followed.
  if (/[{}]/.test(template.replace(FORMAT_FIELD, ''))) return UNKNOWN_PART;
  let next = 0;
  // `{{` and `}}` are literal braces; a field is `{name!c:spec}` (the spec without braces).
  return template.replace(FORMAT_FIELD, (whole, key: string | undefined, path: string, format: string) => {
    if (whole === '{{') return '{';
    if (whole === '}}') return '}';
    const value = key === '' ? args[next++] : /^\d+$/.test(key ?? '') ? args[Number(key)] : kwargs.find((k) => k.name === key)?.value;
    // `{0.attr}` / `{0[key]}` reach into the argument: not followed.
    if (path !== '' || value === undefined) return UNKNOWN_PART;
    return formatValue(value, format);
  });
}

/** A number an expression's value is, if it is one. */
const numberOf = (v: Value | undefined): number | undefined => v?.num;

class CodeAnalyzer {
  readonly recorder = new AccessRecorder();
  /** What could not be followed: any entry means the access found may be incomplete. */
  readonly unanalysable: string[] = [];
  private env = new Map<string, Value>();
  /** Names bound inside a loop or function body, with every value bound to them so far. */
  private readonly loopBindings = new Map<string, Value[]>();
  private steps = 0;

  cannot(reason: string): void {
    if (!this.unanalysable.includes(reason) && this.unanalysable.length < 20) this.unanalysable.push(reason);
  }

  run(statements: Stmt[]): void {
    // Names bound in a loop or function body may hold any of their values wherever they are read.
    for (const s of statements) {
      if (!('loop' in s) || !s.loop) continue;
      const names = s.kind === 'assign' ? s.targets.flat().flatMap((t) => (t.kind === 'name' ? [t.id] : t.kind === 'seq' ? t.items.flatMap((x) => (x.kind === 'name' ? [x.id] : [])) : [])) : s.kind === 'for' ? s.targets : s.kind === 'with' && s.target ? [s.target] : [];
      for (const name of names) if (!this.loopBindings.has(name)) this.loopBindings.set(name, []);
    }
    // Two passes: names used (in loops or function bodies) before the line that binds them get that binding.
    for (let pass = 0; pass < 2; pass++) for (const s of statements) this.statement(s);
  }

  private bind(name: string, value: Value): void {
    const seen = this.loopBindings.get(name);
    if (seen) {
      if (seen.length < 64) seen.push(value);
      this.env.set(name, joinValues(seen));
      return;
    }
    this.env.set(name, value);
  }

  private statement(s: Stmt): void {
    switch (s.kind) {
      case 'assign': {
        const value = s.value.length === 1 ? this.eval(s.value[0]!) : this.evalSeq(s.value);
        for (const group of s.targets) {
          group.forEach((target, i) => {
            if (target.kind === 'name') {
              let v = group.length > 1 ? this.unpacked(value, i, group.length) : value;
              if (s.augmented) v = this.augmented(this.env.get(target.id) ?? UNKNOWN, v);
              this.bind(target.id, v);
            } else if (target.kind === 'seq') {
              target.items.forEach((t, j) => {
                if (t.kind === 'name') this.bind(t.id, this.unpacked(value, j, target.items.length));
                else this.evalTarget(t);
              });
            } else {
              this.evalTarget(target);
              // `d['k'] = v`, `o.x = v`: the container's content is no longer known.
              const root = target.kind === 'sub' || target.kind === 'attr' ? target.obj : null;
              if (root?.kind === 'name') {
                const held = this.env.get(root.id);
                if (held && (held.items || held.entries || held.text !== undefined)) this.bind(root.id, { tables: union([held, value]), opaque: 'unknown' });
              }
            }
          });
        }
        return;
      }
      case 'for': {
        const iter = this.eval(s.iter);
        const element = elementOf(iter);
        for (const [i, name] of s.targets.entries()) this.bind(name, s.targets.length > 1 ? this.unpacked(element, i, s.targets.length) : element);
        return;
      }
      case 'with': {
        const v = this.eval(s.value);
        if (s.target) this.bind(s.target, v);
        return;
      }
      case 'def':
        // A parameter may be given anything: unknown.
        for (const p of s.params) this.bind(p, UNKNOWN);
        return;
      case 'expr':
        for (const e of s.values) this.eval(e);
        return;
    }
  }

  /** Element `i` of `n` when `value` is unpacked (`a, b = value`). */
  private unpacked(value: Value, i: number, n: number): Value {
    const elements = elementsOf(value);
    if (elements && elements.length === n) return elements[i]!;
    if (value.tables.size > 0) return rowsOf(value.tables);
    return isUnknown(value) || value.text !== undefined || value.alts ? UNKNOWN : DATA;
  }

  /** `x += v`. */
  private augmented(old: Value, v: Value): Value {
    const tables = union([old, v]);
    if (old.text !== undefined && v.text !== undefined) return { tables, text: old.text + v.text };
    if (old.num !== undefined && v.num !== undefined) return { tables, num: old.num + v.num };
    if (old.items && v.items) return { tables, items: [...old.items, ...v.items] };
    return { tables, opaque: isUnknown(old) || isUnknown(v) || old.text !== undefined || v.text !== undefined ? 'unknown' : 'data' };
  }

  /** Assignment targets like `row['x'] = ...` write, not read: only evaluate what the subscript itself reads. */
  private evalTarget(target: Expr): void {
    if (target.kind === 'sub') {
      this.eval(target.obj);
      for (const i of target.index) if (i.kind !== 'str') this.eval(i);
    } else if (target.kind === 'attr') {
      this.eval(target.obj);
    } else if (target.kind === 'seq') {
      for (const t of target.items) if (t.kind !== 'name') this.evalTarget(t);
    }
  }

  private evalSeq(items: Expr[]): Value {
    const values = items.map((e) => this.eval(e));
    return { tables: union(values), items: values };
  }

  private eval(e: Expr, lambdaTables?: ReadonlySet<string>): Value {
    if (++this.steps > MAX_STEPS) {
      this.cannot('the code takes too many steps to follow');
      return UNKNOWN;
    }
    switch (e.kind) {
      case 'name': {
        // Reached here, a name is read as a value, not called: an alias of a database function or of eval.
        const lower = e.id.toLowerCase();
        if (DATABASE_FUNCTIONS.has(lower)) this.cannot(`${e.id} is used other than in a direct call (an alias or an argument), so what it reads cannot be followed`);
        if (DYNAMIC.has(lower)) this.cannot(`${e.id} is used: code run by a computed name cannot be analysed`);
        return this.env.get(e.id) ?? CONSTANT_NAMES[e.id] ?? UNKNOWN;
      }
      case 'str': {
        if (!e.fields) return textValue(e.value);
        // An f-string's fields run: whatever they read is read; their values fill the template.
        const fields = e.fields.map((f) => this.eval(f));
        if (!e.pieces || !e.formats) return { tables: EMPTY_TABLES, text: UNKNOWN_PART };
        let text = e.pieces[0] ?? '';
        fields.forEach((f, i) => {
          text += formatValue(f, e.formats![i] ?? '') + (e.pieces![i + 1] ?? '');
        });
        return textValue(text);
      }
      case 'num': {
        const n = Number(e.value.replace(/_/g, ''));
        return Number.isFinite(n) ? numValue(n) : NUMBER;
      }
      case 'seq':
        return this.evalSeq(e.items);
      case 'dict': {
        const entries = new Map<string, Value>();
        let known = true;
        const values: Value[] = [];
        for (const entry of e.entries) {
          const value = this.eval(entry.value);
          values.push(value);
          const key = entry.key ? this.eval(entry.key) : null;
          const keyText = key ? (constText(key) ?? (key.num !== undefined ? String(key.num) : undefined)) : undefined;
          if (keyText === undefined) known = false;
          else entries.set(keyText, value);
        }
        return known ? { tables: union(values), entries } : { tables: union(values), opaque: 'unknown' };
      }
      case 'lambda': {
        const saved = new Map(this.env);
        for (const p of e.params) this.env.set(p, lambdaTables && lambdaTables.size > 0 ? rowsOf(lambdaTables) : UNKNOWN);
        this.eval(e.body);
        this.env = saved;
        return UNKNOWN;
      }
      case 'comp':
        return this.evalComprehension(e);
      case 'ops':
        return this.evalOps(e);
      case 'attr':
        return this.evalAttr(e);
      case 'sub':
        return this.evalSub(e);
      case 'call':
        return this.evalCall(e);
    }
  }

  /**
   * A comprehension: its rows, and, when it runs over known elements with no condition, its
   * elements folded one by one (`''.join([c for c in 'tsoc'][::-1])`).
   */
  private evalComprehension(e: Extract<Expr, { kind: 'comp' }>): Value {
    const saved = new Map(this.env);
    for (const clause of e.clauses) {
      const iter = this.eval(clause.iter);
      const element = elementOf(iter);
      for (const [i, t] of clause.targets.entries()) this.env.set(t, clause.targets.length > 1 ? this.unpacked(element, i, clause.targets.length) : element);
    }
    for (const c of e.conditions) this.eval(c);
    const element = e.element.map((x) => this.eval(x));
    const tables = union(element);
    let folded: Value[] | undefined;
    const [clause] = e.clauses;
    if (e.clauses.length === 1 && clause && e.conditions.length === 0 && e.element.length === 1) {
      const elements = elementsOf(this.evalIn(saved, clause.iter));
      if (elements && elements.length <= MAX_COMPREHENSION) {
        folded = elements.map((item) => {
          this.env = new Map(saved);
          for (const [i, t] of clause.targets.entries()) this.env.set(t, clause.targets.length > 1 ? this.unpacked(item, i, clause.targets.length) : item);
          return this.eval(e.element[0]!);
        });
      }
    }
    this.env = saved;
    if (folded) return { tables, items: folded };
    // Not folded: its elements are what one element is (rows, data) or unknown.
    const one = joinValues(element);
    return { tables, opaque: isUnknown(one) || one.text !== undefined || one.alts ? 'unknown' : 'data' };
  }

  private evalIn(env: Map<string, Value>, e: Expr): Value {
    const current = this.env;
    this.env = new Map(env);
    try {
      return this.eval(e);
    } finally {
      this.env = current;
    }
  }

  private evalOps(e: Extract<Expr, { kind: 'ops' }>): Value {
    const parts = e.parts.map((p) => this.eval(p));
    const tabled = union(parts);
    const ops = e.operators;
    // `'col' in row` tests a column of the row: that is a read of the column.
    if (tabled.size > 0 && ops.includes('in')) {
      for (const [i, p] of e.parts.entries()) {
        if (p.kind === 'str' && parts[i]!.tables.size === 0) for (const t of tabled) this.recorder.maybeColumn(t, p.value);
      }
    }
    // A spread (`*x`), a construct read as parts only ('?'): not known.
    if (ops.length === 0 || ops.includes('*') && parts.length === 1 || ops.includes('?')) return { tables: tabled, opaque: 'unknown' };
    const choosing = ops.some((o) => o === 'if' || o === 'else' || o === 'or' || o === 'and');
    if (choosing) {
      // `a if c else b`, `a or b`: one of the chosen values (the condition of `if` is not chosen).
      const chosen = ops.includes('if') && parts.length === 3 ? [parts[0]!, parts[2]!] : parts;
      return joinValues(chosen);
    }
    if (ops.every((o) => o === '+')) {
      if (parts.length === 1) return parts[0]!.num !== undefined ? parts[0]! : isUnknown(parts[0]!) ? UNKNOWN : isNumber(parts[0]!) ? NUMBER : DATA;
      if (parts.some((p) => p.text !== undefined || p.alts)) {
        if (parts.some((p) => p.alts)) return { tables: tabled, opaque: 'unknown' };
        const text = parts.map(strOf).join('');
        return text.length <= MAX_FOLDED ? textValue(text) : { tables: tabled, opaque: 'unknown' };
      }
      if (parts.every((p) => p.num !== undefined)) return numValue(parts.reduce((sum, p) => sum + p.num!, 0));
      if (parts.every((p) => p.items)) return { tables: tabled, items: parts.flatMap((p) => p.items!) };
    }
    if (ops.length === 1 && ops[0] === '-' && parts.length === 1 && parts[0]!.num !== undefined) return numValue(-parts[0]!.num);
    if (ops.length === 1 && ops[0] === '*' && parts.length === 2) {
      // 'ab' * 3, [x] * 2
      const [a, b] = parts as [Value, Value];
      const [seq, times] = a.num !== undefined ? [b, a.num] : [a, b.num];
      if (times !== undefined && Number.isInteger(times) && times >= 0) {
        if (seq.text !== undefined && seq.text.length * times <= MAX_FOLDED) return textValue(seq.text.repeat(times));
        if (seq.items && seq.items.length * times <= MAX_FOLDED) return { tables: tabled, items: Array.from({ length: times }, () => seq.items!).flat() };
        if (seq.num !== undefined) return numValue(seq.num * times);
      }
    }
    if (ops.length === 1 && ops[0] === '%' && parts[0]?.text !== undefined) {
      const right = e.parts[1];
      const values = right?.kind === 'seq' ? right.items.map((x) => this.eval(x)) : [parts[1] ?? UNKNOWN];
      return textValue(percentFormat(parts[0].text, values));
    }
    if (ops.length === 1 && parts.length === 2 && parts.every((p) => p.num !== undefined)) {
      const [a, b] = [parts[0]!.num!, parts[1]!.num!];
      const n = ops[0] === '-' ? a - b : ops[0] === '//' && b !== 0 ? Math.floor(a / b) : ops[0] === '%' && b !== 0 ? a - b * Math.floor(a / b) : undefined;
      if (n !== undefined) return numValue(n);
    }
    // Comparisons and the rest of arithmetic: a number or a boolean (or a mask over rows), whose value is not followed;
    // arithmetic on text or on what is not known is not known.
    const text = parts.some((p) => p.text !== undefined || p.alts || p.items);
    const arithmetic = ops.some((o) => /^[-+*/%@&|^~]|<<|>>/.test(o) && !['<', '>', '<=', '>='].includes(o));
    if (arithmetic && (text || parts.some(isUnknown))) return { tables: EMPTY_TABLES, opaque: 'unknown' };
    return arithmetic && !parts.every(isNumber) ? DATA : NUMBER;
  }

  private evalAttr(e: Extract<Expr, { kind: 'attr' }>): Value {
    const obj = this.eval(e.obj);
    let isColumn = false;
    for (const t of obj.tables) isColumn = this.recorder.maybeColumn(t, e.name) || isColumn;
    if (isColumn) return DATA;
    if (obj.tables.size > 0) return rowsOf(obj.tables);
    return isUnknown(obj) || obj.text !== undefined || obj.items || obj.entries || obj.alts ? UNKNOWN : DATA;
  }

  /** Whether an index value names no column: a number, a boolean or mask, a slice. */
  private static isPositional(v: Value): boolean {
    return isNumber(v);
  }

  private evalSub(e: Extract<Expr, { kind: 'sub' }>): Value {
    const obj = this.eval(e.obj);
    if (e.slice) {
      const bounds = e.slice.map((b) => (b ? this.eval(b) : null));
      const known = bounds.every((b) => b === null || b.num !== undefined);
      if (obj.tables.size > 0) return rowsOf(obj.tables);
      if (!known) return isUnknown(obj) || obj.text !== undefined || obj.items ? { tables: EMPTY_TABLES, opaque: 'unknown' } : DATA;
      const [start, stop, step] = [0, 1, 2].map((i) => bounds[i]?.num ?? null) as [number | null, number | null, number | null];
      if (obj.text !== undefined) {
        const sliced = pythonSlice([...obj.text], start, stop, step);
        return sliced ? textValue(sliced.join('')) : UNKNOWN;
      }
      if (obj.items) {
        const sliced = pythonSlice(obj.items, start, stop, step);
        return sliced ? { tables: union(sliced), items: sliced } : UNKNOWN;
      }
      return isUnknown(obj) || obj.alts ? UNKNOWN : DATA;
    }
    const indexes = e.index.map((i) => this.eval(i));
    if (obj.tables.size > 0 && !obj.items && !obj.entries) {
      // Rows: a constant string (or list of them) is a column; a number, mask or slice selects rows.
      let columns = 0;
      for (const [i, index] of indexes.entries()) {
        const names = constTexts(index) ?? (index.items?.every((x) => constText(x) !== undefined) ? index.items.map((x) => constText(x)!) : undefined);
        if (names) {
          for (const name of names) for (const t of obj.tables) this.recorder.maybeColumn(t, name);
          if (e.index[i]!.kind === 'str' || index.alts || (index.text !== undefined && !index.items)) columns++;
        } else if (!CodeAnalyzer.isPositional(index) && !(index.tables.size > 0)) {
          this.cannot(`rows of ${[...obj.tables].join(', ')} are indexed by a value that is not a constant, so which column is read cannot be known`);
        }
      }
      // `db['col']` is a column's values; `db[mask]`, `db[0]`, `db[['a', 'b']]` still hold the table's rows.
      return columns > 0 && columns === indexes.length ? DATA : rowsOf(obj.tables);
    }
    const [index] = indexes;
    if (indexes.length !== 1 || !index) return isUnknown(obj) ? UNKNOWN : DATA;
    if (obj.entries) {
      const key = constText(index) ?? (index.num !== undefined ? String(index.num) : undefined);
      const found = key === undefined ? undefined : obj.entries.get(key);
      if (found) return found;
      if (index.alts) return joinValues(index.alts.map((k) => obj.entries!.get(k) ?? UNKNOWN));
      return UNKNOWN;
    }
    const position = numberOf(index);
    if (obj.items) {
      const at = position === undefined ? undefined : pythonIndex(position, obj.items.length);
      if (at !== undefined) return obj.items[at]!;
      return joinValues(obj.items);
    }
    if (obj.text !== undefined) {
      const chars = [...obj.text];
      const at = position === undefined ? undefined : pythonIndex(position, chars.length);
      return at !== undefined && !hasPlaceholder(chars[at]!) ? textValue(chars[at]!) : UNKNOWN;
    }
    return isUnknown(obj) || obj.alts ? UNKNOWN : DATA;
  }

  /** The constant text of a database function's argument, or a reason it is not one. */
  private constantArgument(value: Value | undefined, what: string): string[] | null {
    const texts = constTexts(value);
    if (texts) return texts;
    const shown = value?.text !== undefined ? JSON.stringify(value.text.replaceAll(DATA_PART, '{data}').replaceAll(UNKNOWN_PART, '{?}')) : value ? 'a computed value' : 'nothing';
    this.cannot(`${what} is not a constant (${shown}), so what it reads cannot be known`);
    return null;
  }

  private evalCall(e: Extract<Expr, { kind: 'call' }>): Value {
    const name = calleeName(e.func)?.toLowerCase() ?? '';
    const receiver = e.func.kind === 'attr' ? this.eval(e.func.obj) : UNKNOWN;
    if (e.func.kind !== 'attr' && e.func.kind !== 'name') this.eval(e.func);
    const lambdaTables = receiver.tables.size > 0 ? receiver.tables : undefined;
    const args = e.args.map((a, i) => (a.kind === 'lambda' ? this.eval(a, lambdaTables ?? (i > 0 ? this.eval(e.args[0]!).tables : undefined)) : this.eval(a)));
    const kwargs = e.kwargs.map((k) => ({ name: k.name, expr: k.value, value: k.value.kind === 'lambda' ? this.eval(k.value, lambdaTables ?? args[0]?.tables) : this.eval(k.value) }));

    if (DYNAMIC.has(name)) this.cannot(`calls ${calleeName(e.func)}(): code run by a computed name cannot be analysed`);
    if (FILE_READERS.has(name) || (name === 'load' && e.func.kind === 'attr' && e.func.obj.kind === 'name' && NUMPY_NAMES.has(e.func.obj.id))) {
      this.cannot(`calls ${calleeName(e.func)}(): a file read past the database functions cannot be analysed`);
    }
    if (name === 'loaddb') {
      const texts = this.constantArgument(args[0] ?? kwargs[0]?.value, 'the table name given to LoadDB');
      const tables = (texts ?? []).map(normalizeTable);
      if (!texts || tables.some((t) => t === null)) {
        if (texts) this.cannot(`LoadDB is given a table name that is not a constant (${JSON.stringify(texts.join(' | '))})`);
        return UNKNOWN;
      }
      for (const t of tables) this.recorder.touch(t!);
      return rowsOf(new Set(tables as string[]));
    }
    if (name === 'filterdb') {
      const db = args[0] ?? UNKNOWN;
      const given = args[1] ?? kwargs.find((k) => /cond/i.test(k.name))?.value;
      this.filterCondition(db, given);
      return rowsOf(db.tables);
    }
    if (name === 'getvalue') {
      const db = args[0] ?? UNKNOWN;
      const texts = this.constantArgument(args[1] ?? kwargs.find((k) => /arg|col/i.test(k.name))?.value, 'the column argument given to GetValue');
      for (const argument of texts ?? []) for (const t of db.tables) for (const c of getValueColumns(argument)) this.recorder.column(t, c);
      return DATA;
    }
    if (name === 'sqlinterpreter' || name === 'execute' || name === 'read_sql' || name === 'read_sql_query') {
      const given = args.find((a) => a.text !== undefined || a.alts) ?? kwargs.find((k) => k.value.text !== undefined || k.value.alts)?.value ?? args[0] ?? kwargs[0]?.value;
      const texts = this.constantArgument(given, `the query given to ${calleeName(e.func)}`);
      for (const sql of texts ?? []) for (const reason of sqlAccess(sql, this.recorder)) this.cannot(reason);
      return DATA;
    }
    if (e.func.kind === 'attr') return this.evalMethod(e, name, receiver, args, kwargs);
    if (PASS_THROUGH.has(name)) return this.passThrough(name, args, kwargs.map((k) => k.value));
    if (name === 'str' && args.length <= 1) return textValue(args[0] ? strOf(args[0]) : '');
    if (name === 'repr' && args.length === 1) return textValue(reprOf(args[0]!));
    if (name === 'chr' && args.length === 1) return args[0]!.num !== undefined ? textValue(formatValue(args[0]!, 'c')) : UNKNOWN;
    if (name === 'ord' && args.length === 1) {
      const t = constText(args[0]);
      return t !== undefined && [...t].length === 1 ? numValue(t.codePointAt(0)!) : NUMBER;
    }
    if ((name === 'format') && args.length >= 1) return textValue(formatValue(args[0]!, args[1] ? `:${constText(args[1]) ?? '{'}` : ''));
    if (name === 'dict' && args.length === 0) return kwargs.length === 0 ? { tables: EMPTY_TABLES, entries: new Map() } : { tables: EMPTY_TABLES, entries: new Map(kwargs.map((k) => [k.name, k.value])) };
    if ((name === 'max' || name === 'min') && args.length >= 1) {
      const values = args.length === 1 ? elementsOf(args[0]!) : args;
      if (values && values.length > 0 && values.every((v) => constText(v) !== undefined)) {
        const texts = values.map((v) => constText(v)!).sort();
        return textValue(name === 'max' ? texts[texts.length - 1]! : texts[0]!);
      }
      const all = [...args, ...(values ?? [])];
      return all.some((v) => isUnknown(v) || v.text !== undefined || v.alts) ? UNKNOWN : DATA;
    }
    if (NUMBER_CALLS.has(name)) return NUMBER;
    if (DATA_CALLS.has(name)) return DATA;
    return UNKNOWN;
  }

  /** list(), sorted(), reversed(), set()…: rows pass through; known elements are kept (and sorted or reversed). */
  private passThrough(name: string, args: Value[], kwargs: Value[]): Value {
    const tables = union([...args, ...kwargs]);
    const [first] = args;
    const elements = first && args.length === 1 && kwargs.length === 0 ? elementsOf(first) : undefined;
    if (elements && (name === 'list' || name === 'tuple' || name === 'iter' || name === 'copy' || name === 'deepcopy')) return { tables, items: elements };
    if (elements && name === 'reversed') return { tables, items: [...elements].reverse() };
    if (elements && (name === 'sorted' || name === 'set' || name === 'frozenset') && elements.every((x) => constText(x) !== undefined)) {
      const texts = elements.map((x) => constText(x)!);
      return { tables, items: (name === 'sorted' ? [...texts].sort() : [...new Set(texts)]).map(textValue) };
    }
    if (elements && name === 'next') return elements[0] ?? UNKNOWN;
    if (tables.size > 0) return rowsOf(tables);
    return [...args, ...kwargs].some((v) => isUnknown(v) || v.text !== undefined || v.items || v.alts) ? UNKNOWN : DATA;
  }

  /** `receiver.method(args)`. */
  private evalMethod(e: Extract<Expr, { kind: 'call' }>, name: string, receiver: Value, args: Value[], kwargs: Array<{ name: string; value: Value }>): Value {
    const func = e.func as Extract<Expr, { kind: 'attr' }>;
    if (name === 'format' && receiver.text !== undefined) return textValue(formatTemplate(receiver.text, args, kwargs));
    if (name === 'format' && receiver.alts) return UNKNOWN;
    // `''.join(pieces)`: a constant when every piece is.
    if (name === 'join' && receiver.text !== undefined && receiver.tables.size === 0) {
      const pieces = args[0] ? elementsOf(args[0]) : undefined;
      if (pieces && args.length === 1 && pieces.every((p) => p.text !== undefined)) {
        const text = pieces.map((p) => p.text!).join(receiver.text);
        return text.length <= MAX_FOLDED ? textValue(text) : UNKNOWN;
      }
      return { tables: union(args), text: UNKNOWN_PART };
    }
    const constReceiver = constText(receiver);
    if (constReceiver !== undefined && receiver.tables.size === 0) {
      const plain = args.map((a) => constText(a) ?? a.num);
      const folded = args.every((a, i) => plain[i] !== undefined || a === undefined) && kwargs.length === 0 ? stringMethod(constReceiver, name, plain) : undefined;
      if (typeof folded === 'string') return textValue(folded);
      if (Array.isArray(folded)) return { tables: EMPTY_TABLES, items: folded.map(textValue) };
    }
    if (receiver.text !== undefined && receiver.tables.size === 0 && CASE_METHODS.has(name) && args.every((a) => constText(a) !== undefined)) {
      const text = name === 'lower' || name === 'casefold' ? receiver.text.toLowerCase() : name === 'upper' ? receiver.text.toUpperCase() : receiver.text;
      return textValue(text);
    }
    if (receiver.entries && name === 'get') {
      const key = constText(args[0]) ?? (args[0]?.num !== undefined ? String(args[0].num) : undefined);
      return (key !== undefined ? receiver.entries.get(key) : undefined) ?? args[1] ?? (key !== undefined ? DATA : UNKNOWN);
    }
    if (receiver.entries && (name === 'keys' || name === 'values' || name === 'items')) {
      const entries = [...receiver.entries];
      return { tables: receiver.tables, items: entries.map(([k, v]) => (name === 'keys' ? textValue(k) : name === 'values' ? v : { tables: v.tables, items: [textValue(k), v] })) };
    }
    // Containers that collect rows (`out.append(row)`, `out.extend(rows)`) hold those rows from then on.
    if (MUTATORS.has(name) && func.obj.kind === 'name') {
      const grown = union([receiver, ...args]);
      const known = receiver.items && (name === 'append' || name === 'extend') && args.length === 1;
      const items = known ? (name === 'append' ? [...receiver.items!, args[0]!] : elementsOf(args[0]!) ? [...receiver.items!, ...elementsOf(args[0]!)!] : undefined) : undefined;
      // A changed container's content is known only for append/extend of a list built in plain code.
      this.bind(func.obj.id, items ? { tables: grown, items } : { tables: grown, opaque: [receiver, ...args].some((v) => isUnknown(v) || v.text !== undefined || v.alts) ? 'unknown' : 'data' });
      if (receiver.tables.size === 0) return DATA;
    }
    if (receiver.tables.size > 0 && !receiver.items && !receiver.entries) {
      // A method on rows (sort_values('x'), groupby('x'), get('x'), iterrows()...): string arguments that are
      // columns are reads; an argument that is text not known (a computed name) may be a column: not followed.
      for (const [i, value] of [...args, ...kwargs.map((k) => k.value)].entries()) {
        const expr = i < e.args.length ? e.args[i]! : e.kwargs[i - e.args.length]!.value;
        if (expr.kind === 'lambda') continue;
        const names = constTexts(value) ?? (value.items ? value.items.map((x) => constText(x)) : undefined);
        if (names?.every((n) => n !== undefined)) {
          for (const n of names as string[]) for (const t of receiver.tables) this.recorder.maybeColumn(t, n);
        } else if (value.entries) {
          for (const key of value.entries.keys()) for (const t of receiver.tables) this.recorder.maybeColumn(t, key);
        } else if (value.tables.size === 0 && (isUnknown(value) || value.text !== undefined || value.alts || value.items)) {
          this.cannot(`a method on rows of ${[...receiver.tables].join(', ')} (${calleeName(func)}) is given a value that is not a constant, so which column it reads cannot be known`);
        }
      }
      return rowsOf(receiver.tables);
    }
    if (!isUnknown(receiver) && receiver.text === undefined && !receiver.alts && !receiver.items && !receiver.entries) {
      // A value read from the data (a date, a number, a cell): what its own methods return is data too.
      if (NUMBER_CALLS.has(name)) return NUMBER;
      return DATA_METHODS.has(name) || DATA_CALLS.has(name) ? DATA : UNKNOWN;
    }
    // A module function (np.mean, math.floor, datetime.strptime) computes a number or a date.
    if ((func.obj.kind === 'name' && !this.env.has(func.obj.id)) || func.obj.kind === 'attr') {
      if (NUMBER_CALLS.has(name)) return NUMBER;
      if (DATA_CALLS.has(name)) return DATA;
    }
    return { tables: union(args), opaque: 'unknown' };
  }

  /** FilterDB's condition: the columns before each operator are read; a value part may only be data. */
  private filterCondition(db: Value, given: Value | undefined): void {
    if (given?.alts) {
      for (const alt of given.alts) for (const t of db.tables) for (const c of conditionColumns(alt)) this.recorder.column(t, c);
      return;
    }
    const text = given?.text;
    if (text === undefined || text.includes(UNKNOWN_PART)) {
      // Records why: the condition (or a part of it) is not known.
      this.constantArgument(given, 'the condition given to FilterDB');
      return;
    }
    const unreadable = conditionParts(text).find((part) => part.includes(DATA_PART) && !dataOnlyInValue(part));
    if (unreadable !== undefined) {
      this.cannot(`the condition given to FilterDB has a value of the data where a column is named (${JSON.stringify(unreadable.replaceAll(DATA_PART, '{data}'))}), so what it reads cannot be known`);
      return;
    }
    for (const t of db.tables) for (const c of conditionColumns(text)) this.recorder.column(t, c);
  }
}

/**
 * The tables and columns the Python code EHRAgent generated reads: `LoadDB('t')` loads a table,
 * `FilterDB(db, 'col=v||col2>v')` and `GetValue(db, 'col, max')` read columns of `db`'s table,
 * `SQLInterpreter('select ...')` reads what the query names, and subscripts/attributes/`'col' in row`
 * on rows of a loaded table read eICU columns. Variables, aliases, loops, comprehensions, nested calls
 * and `.format`/f-string/`+` built strings are followed. Tables loaded but never read by column map to [].
 * For the ten eICU tables only real columns count; names read from an unknown table are kept as written.
 */
export function ehrCodeAccess(code: string): Record<string, string[]> {
  const analysis = ehrCodeAnalysis(code);
  if (analysis.unanalysable.length > 0) throw new CodeUnanalysableError(analysis.unanalysable);
  return analysis.access;
}

/** What ehrCodeAnalysis found: the access it could follow, and what it could not. */
export interface CodeAnalysis {
  access: Record<string, string[]>;
  /**
   * Why the access may be incomplete, empty when it is not: a line the parser could not read, a
   * table name or query built from values it cannot know, a database function aliased or passed
   * along, eval/exec/getattr and the like. A guard must not allow what it could not analyse.
   */
  unanalysable: string[];
}

/** Like ehrCodeAccess, but reports what it could not follow instead of throwing. */
export function ehrCodeAnalysis(code: string): CodeAnalysis {
  const analyzer = new CodeAnalyzer();
  const { statements, skipped } = parsePython(String(code ?? ''));
  for (const line of skipped) analyzer.cannot(`a line could not be read: ${line}`);
  analyzer.run(statements);
  return { access: analyzer.recorder.result(), unanalysable: analyzer.unanalysable };
}
