import { parsePython } from './parse-python';
import type { Expr, Stmt } from './python-tree';
import { AccessRecorder, normalizeTable } from './access-recorder';
import { conditionColumns, getValueColumns } from './condition-columns';
import { sqlAccess } from './sql-access';
import { CodeUnanalysableError } from './code-unanalysable-error';

/** What an expression evaluates to, as far as access goes: the tables its rows come from, and its text if it is a string. */
interface Value {
  tables: ReadonlySet<string>;
  text?: string;
}

const NONE: Value = { tables: new Set() };
const union = (values: Value[]): Set<string> => new Set(values.flatMap((v) => [...v.tables]));

/** Builtins whose result still holds the rows of their arguments (iterating them yields those rows). */
const PASS_THROUGH = new Set(['list', 'sorted', 'reversed', 'enumerate', 'zip', 'iter', 'filter', 'tuple', 'copy', 'deepcopy', 'concat', 'dataframe', 'next']);

/** EHRAgent's database functions: used other than by a direct call (aliased, passed along), their reads cannot be followed. */
const DATABASE_FUNCTIONS = new Set(['loaddb', 'filterdb', 'getvalue', 'sqlinterpreter']);

/** Builtins that run code or reach a function by a name computed at run time. */
const DYNAMIC = new Set(['eval', 'exec', 'execfile', 'compile', '__import__', 'getattr', 'setattr', 'globals', 'locals', 'vars', '__builtins__', 'import_module', 'importlib']);

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

/** A placeholder left in a string built from values the analyser cannot know. */
const UNKNOWN_PART = '{}';

/** List/set/dict methods that add their arguments to the receiver. */
const MUTATORS = new Set(['append', 'extend', 'insert', 'add', 'update', 'appendleft', 'extendleft']);

function calleeName(func: Expr): string | null {
  if (func.kind === 'name') return func.id;
  if (func.kind === 'attr') return func.name;
  return null;
}

/** `'{}-{}'.format('a', x)` → 'a-{}': constant arguments filled in, the others left as placeholders. */
function formatTemplate(template: string, args: Value[], kwargs: Array<{ name: string; value: Value }>): string {
  let next = 0;
  return template.replace(/\{([A-Za-z_0-9]*)(?:![rsa])?(?::[^{}]*)?\}/g, (_field, key: string) => {
    const value = key === '' ? args[next++] : /^\d+$/.test(key) ? args[Number(key)] : kwargs.find((k) => k.name === key)?.value;
    return value?.text ?? UNKNOWN_PART;
  });
}

/** `'%s_%s' % ('a', x)` → 'a_{}'. */
function percentTemplate(template: string, values: Value[]): string {
  let next = 0;
  return template.replace(/%[sdr]/g, () => values[next++]?.text ?? UNKNOWN_PART);
}

class CodeAnalyzer {
  readonly recorder = new AccessRecorder();
  /** What could not be followed: any entry means the access found may be incomplete. */
  readonly unanalysable: string[] = [];
  private env = new Map<string, Value>();

  cannot(reason: string): void {
    if (!this.unanalysable.includes(reason) && this.unanalysable.length < 20) this.unanalysable.push(reason);
  }

  run(statements: Stmt[]): void {
    // Two passes: names used (in loops or function bodies) before the line that binds them get that binding.
    for (let pass = 0; pass < 2; pass++) for (const s of statements) this.statement(s);
  }

  private bind(name: string, value: Value): void {
    this.env.set(name, value);
  }

  private statement(s: Stmt): void {
    switch (s.kind) {
      case 'assign': {
        const value = s.value.length === 1 ? this.eval(s.value[0]) : this.evalSeq(s.value);
        const parts = s.value.length > 1 ? s.value.map((e) => this.eval(e)) : null;
        for (const group of s.targets) {
          group.forEach((target, i) => {
            if (target.kind === 'name') {
              let v = parts && parts.length === group.length ? parts[i] : value;
              if (s.augmented) v = { tables: union([this.env.get(target.id) ?? NONE, v]) };
              this.bind(target.id, v);
            } else {
              this.evalTarget(target);
            }
          });
        }
        return;
      }
      case 'for': {
        const iter = this.eval(s.iter);
        for (const name of s.targets) this.bind(name, { tables: iter.tables });
        return;
      }
      case 'with': {
        const v = this.eval(s.value);
        if (s.target) this.bind(s.target, v);
        return;
      }
      case 'def':
        for (const p of s.params) this.bind(p, NONE);
        return;
      case 'expr':
        for (const e of s.values) this.eval(e);
        return;
    }
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
    return { tables: union(items.map((e) => this.eval(e))) };
  }

  private eval(e: Expr, lambdaTables?: ReadonlySet<string>): Value {
    switch (e.kind) {
      case 'name': {
        // Reached here, a name is read as a value, not called: an alias of a database function or of eval.
        const lower = e.id.toLowerCase();
        if (DATABASE_FUNCTIONS.has(lower)) this.cannot(`${e.id} is used other than in a direct call (an alias or an argument), so what it reads cannot be followed`);
        if (DYNAMIC.has(lower)) this.cannot(`${e.id} is used: code run by a computed name cannot be analysed`);
        return this.env.get(e.id) ?? NONE;
      }
      case 'str':
        // An f-string's fields run: whatever they read is read (the string's own text holds no rows).
        for (const field of e.fields ?? []) this.eval(field);
        return { tables: new Set(), text: e.value };
      case 'num':
        return NONE;
      case 'seq':
        return this.evalSeq(e.items);
      case 'lambda': {
        const saved = new Map(this.env);
        for (const p of e.params) this.bind(p, { tables: lambdaTables ?? new Set() });
        this.eval(e.body);
        this.env = saved;
        return NONE;
      }
      case 'comp': {
        const saved = new Map(this.env);
        for (const clause of e.clauses) {
          const iter = this.eval(clause.iter);
          for (const t of clause.targets) this.bind(t, { tables: iter.tables });
        }
        for (const c of e.conditions) this.eval(c);
        const element = e.element.map((x) => this.eval(x));
        this.env = saved;
        return { tables: union(element) };
      }
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

  private evalOps(e: Extract<Expr, { kind: 'ops' }>): Value {
    const parts = e.parts.map((p) => this.eval(p));
    const tabled = union(parts);
    // `'col' in row` tests a column of the row: that is a read of the column.
    if (tabled.size > 0 && e.operators.includes('in')) {
      for (const [i, p] of e.parts.entries()) {
        if (p.kind === 'str' && parts[i].tables.size === 0) for (const t of tabled) this.recorder.maybeColumn(t, p.value);
      }
    }
    let text: string | undefined;
    if (e.operators.length > 0 && e.operators.every((o) => o === '+') && parts.some((p) => p.text !== undefined)) {
      text = parts.map((p) => p.text ?? UNKNOWN_PART).join('');
    } else if (e.operators.length === 1 && e.operators[0] === '%' && parts[0]?.text !== undefined) {
      const right = e.parts[1];
      const values = right?.kind === 'seq' ? right.items.map((x) => this.eval(x)) : [parts[1] ?? NONE];
      text = percentTemplate(parts[0].text, values);
    }
    const choosing = e.operators.some((o) => o === 'if' || o === 'else' || o === 'or' || o === 'and');
    return { tables: choosing ? tabled : new Set(), text };
  }

  private evalAttr(e: Extract<Expr, { kind: 'attr' }>): Value {
    const obj = this.eval(e.obj);
    let isColumn = false;
    for (const t of obj.tables) isColumn = this.recorder.maybeColumn(t, e.name) || isColumn;
    return isColumn ? NONE : { tables: obj.tables, text: obj.text };
  }

  private evalSub(e: Extract<Expr, { kind: 'sub' }>): Value {
    const obj = this.eval(e.obj);
    let columns = 0;
    let other = 0;
    for (const index of e.index) {
      const strings = index.kind === 'str' ? [index] : index.kind === 'seq' && index.items.every((x) => x.kind === 'str') ? index.items : null;
      if (strings && obj.tables.size > 0) {
        for (const s of strings) for (const t of obj.tables) this.recorder.maybeColumn(t, (s as { value: string }).value);
        if (index.kind === 'str') columns++;
        else other++;
      } else {
        this.eval(index);
        other++;
      }
    }
    // `db['col']` is a column's values; `db[mask]`, `db[0]`, `db[['a', 'b']]` still hold the table's rows.
    if (columns > 0 && other === 0) return NONE;
    return { tables: obj.tables };
  }

  private evalCall(e: Extract<Expr, { kind: 'call' }>): Value {
    const name = calleeName(e.func)?.toLowerCase() ?? '';
    const receiver = e.func.kind === 'attr' ? this.eval(e.func.obj) : NONE;
    if (e.func.kind !== 'attr' && e.func.kind !== 'name') this.eval(e.func);
    const lambdaTables = receiver.tables.size > 0 ? receiver.tables : undefined;
    const args = e.args.map((a, i) => (a.kind === 'lambda' ? this.eval(a, lambdaTables ?? (i > 0 ? this.eval(e.args[0]).tables : undefined)) : this.eval(a)));
    const kwargs = e.kwargs.map((k) => ({ name: k.name, expr: k.value, value: k.value.kind === 'lambda' ? this.eval(k.value, lambdaTables ?? args[0]?.tables) : this.eval(k.value) }));

    if (DYNAMIC.has(name)) this.cannot(`calls ${calleeName(e.func)}(): code run by a computed name cannot be analysed`);
    if (FILE_READERS.has(name) || (name === 'load' && e.func.kind === 'attr' && e.func.obj.kind === 'name' && NUMPY_NAMES.has(e.func.obj.id))) {
      this.cannot(`calls ${calleeName(e.func)}(): a file read past the database functions cannot be analysed`);
    }
    if (name === 'loaddb') {
      const given = args[0] ?? kwargs[0]?.value;
      const table = given?.text !== undefined && !given.text.includes(UNKNOWN_PART) ? normalizeTable(given.text) : null;
      if (!table) {
        this.cannot(`LoadDB is given a table name that is not a constant (${given?.text === undefined ? 'a computed value' : JSON.stringify(given.text)})`);
        return NONE;
      }
      this.recorder.touch(table);
      return { tables: new Set([table]) };
    }
    if (name === 'filterdb') {
      const db = args[0] ?? NONE;
      const condition = args[1]?.text ?? kwargs.find((k) => /cond/i.test(k.name))?.value.text;
      if (condition !== undefined) for (const t of db.tables) for (const c of conditionColumns(condition)) this.recorder.column(t, c);
      return { tables: db.tables };
    }
    if (name === 'getvalue') {
      const db = args[0] ?? NONE;
      const argument = args[1]?.text ?? kwargs.find((k) => /arg|col/i.test(k.name))?.value.text;
      if (argument !== undefined) for (const t of db.tables) for (const c of getValueColumns(argument)) this.recorder.column(t, c);
      return NONE;
    }
    if (name === 'sqlinterpreter' || name === 'execute' || name === 'read_sql' || name === 'read_sql_query') {
      const sql = args.find((a) => a.text !== undefined)?.text ?? kwargs.find((k) => k.value.text !== undefined)?.value.text;
      if (sql === undefined || sql.includes(UNKNOWN_PART)) this.cannot(`${calleeName(e.func)} is given a query that is not a constant string`);
      if (sql !== undefined) for (const reason of sqlAccess(sql, this.recorder)) this.cannot(reason);
      return NONE;
    }
    if (e.func.kind === 'attr') {
      if (name === 'format') return { tables: new Set(), text: receiver.text === undefined ? undefined : formatTemplate(receiver.text, args, kwargs) };
      // `''.join(['co', 'st'])`: a constant when every piece is.
      if (name === 'join' && receiver.text !== undefined && receiver.tables.size === 0) {
        const pieces = e.args[0]?.kind === 'seq' ? e.args[0].items.map((x) => this.eval(x).text) : [];
        if (pieces.length > 0 && pieces.every((p) => p !== undefined)) return { tables: union(args), text: pieces.join(receiver.text) };
        return { tables: union(args), text: UNKNOWN_PART };
      }
      // Containers that collect rows (`out.append(row)`, `out.extend(rows)`) hold those rows from then on.
      if (MUTATORS.has(name) && e.func.obj.kind === 'name') {
        const grown = union([receiver, ...args]);
        if (grown.size > 0) this.bind(e.func.obj.id, { tables: grown, text: receiver.text });
        if (receiver.tables.size === 0) return NONE;
      }
      if (receiver.tables.size > 0) {
        // Method on rows (sort_values('x'), groupby('x'), get('x'), iterrows()...): string arguments that are
        // columns are reads; the result still holds the rows.
        const strings = [...e.args, ...e.kwargs.map((k) => k.value)].flatMap((a) => (a.kind === 'str' ? [a.value] : a.kind === 'seq' ? a.items.flatMap((x) => (x.kind === 'str' ? [x.value] : [])) : []));
        for (const s of strings) for (const t of receiver.tables) this.recorder.maybeColumn(t, s);
        return { tables: receiver.tables };
      }
      return { tables: union(args), text: name === 'strip' || name === 'lower' ? receiver.text : undefined };
    }
    if (PASS_THROUGH.has(name)) return { tables: union([...args, ...kwargs.map((k) => k.value)]) };
    if (name === 'str' && args.length === 1) return { tables: new Set(), text: args[0].text };
    return NONE;
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
