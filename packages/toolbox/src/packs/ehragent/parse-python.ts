import type { SyntaxNode, Tree } from '@lezer/common';
import { errorMessage } from '@guardagent/errors';
import { parser } from '@lezer/python';
import { CodeTooComplexError } from './code-too-complex-error';
import { decodeEscapes, decodePythonString, stringLiteralParts } from './python-string';
import { MAX_NESTING, type Expr, type Stmt } from './python-tree';

/** Imports that can rename a database function or run code by name. */
const RISKY_IMPORTS = new Set(['loaddb', 'filterdb', 'getvalue', 'sqlinterpreter', 'importlib', 'builtins', '__builtins__']);
/**
 * Modules that compute and reach nothing outside the program: an import of any other module
 * (os, subprocess, sqlite3, pathlib, socket…) can read the data files or run commands past the
 * database functions, so the code is not analysable. An allow-list: a module no one thought of
 * is refused, not trusted. numpy and pandas are here for their arithmetic; their file readers are
 * refused where they are called (code-access).
 */
const PURE_MODULES = new Set([
  'math', 'cmath', 'datetime', 'time', 'calendar', 're', 'json', 'collections', 'statistics', 'itertools', 'functools', 'operator',
  'decimal', 'fractions', 'random', 'string', 'typing', 'dataclasses', 'copy', 'heapq', 'bisect', 'numbers', 'enum', 'textwrap',
  'unicodedata', 'difflib', 'pprint', 'numpy', 'pandas', 'dateutil', 'zoneinfo',
]);
/** The top-level modules an import statement names: `from a.b import c` → a; `import x.y as z, w` → x, w. */
function importedModules(statement: string): string[] {
  const from = /^\s*from\s+([\w.]+)\s+import\b/.exec(statement);
  if (from) return [from[1]!.startsWith('.') ? '.' : from[1]!.split('.')[0]!];
  const plain = /^\s*import\s+([^#\n]*)/.exec(statement);
  return plain ? plain[1]!.split(',').map((part) => part.trim().split(/[\s.]/)[0]!).filter((m) => m !== '') : [];
}

/** Operator tokens kept in `ops` (the analysis reads `+`, `%`, `in` and the choosing ones). */
const OPERATOR_NODES = new Set(['ArithOp', 'BitOp', 'CompareOp', 'and', 'or', 'not', 'in', 'is', 'if', 'else', 'await', 'lambda']);

/** Nodes that are neither expressions nor statements: punctuation containers read by their parent. */
const NOT_EXPRESSIONS = new Set([
  'ArgList', 'ParamList', 'Body', 'TypeDef', 'FormatConversion', 'FormatSpec', 'FormatReplacement', 'Decorator', 'PropertyName',
  'AssignOp', 'UpdateOp', 'ArithOp', 'BitOp', 'CompareOp', 'At', 'Comment', 'MatchBody', 'MatchClause',
]);

/** Statements with nothing to analyse. */
const INERT_STATEMENTS = new Set(['PassStatement', 'BreakStatement', 'ContinueStatement', 'ScopeStatement', 'Comment']);
/** Statements whose expressions are evaluated as they stand. */
const EXPRESSION_STATEMENTS = new Set(['ExpressionStatement', 'PrintStatement', 'ReturnStatement', 'YieldStatement', 'DeleteStatement', 'AssertStatement', 'RaiseStatement']);
/** Compound statements: their expressions are evaluated, their blocks read in order. */
const BLOCK_STATEMENTS = new Set(['IfStatement', 'WhileStatement', 'TryStatement', 'ClassDefinition']);

function children(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) out.push(child);
  return out;
}

/** Expression nodes are named in CamelCase; punctuation and keywords are named by their text. */
function isExpression(node: SyntaxNode): boolean {
  return !node.type.isError && /^[A-Z]/.test(node.name) && !NOT_EXPRESSIONS.has(node.name);
}

/** A short, readable rendering of a piece of source for a reason string. */
function describe(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat;
}

class Converter {
  private depth = 0;
  /** How many loop or function bodies enclose the statement being read. */
  private loopDepth = 0;
  /** Source the converter could not read (syntax errors, constructs it does not follow): unanalysable. */
  readonly skipped: string[] = [];

  constructor(private readonly source: string) {}

  private text(node: SyntaxNode): string {
    return this.source.slice(node.from, node.to);
  }

  private skip(node: SyntaxNode, what?: string): void {
    if (this.skipped.length < 20) this.skipped.push(what ?? describe(this.text(node)));
  }

  private nested<T>(fn: () => T): T {
    if (++this.depth > MAX_NESTING) throw new CodeTooComplexError(MAX_NESTING);
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }

  block(node: SyntaxNode, out: Stmt[]): void {
    for (const child of children(node)) if (child.name !== ':' && !child.type.isError) this.statement(child, out);
  }

  /** A loop's or a function's body: bindings in it are marked `loop`. */
  private loopBlock(node: SyntaxNode, out: Stmt[]): void {
    this.loopDepth++;
    try {
      this.block(node, out);
    } finally {
      this.loopDepth--;
    }
  }

  /** `{ loop: true }` inside a loop or function body, else nothing. */
  private loopMark(): { loop?: true } {
    return this.loopDepth > 0 ? { loop: true } : {};
  }

  private statement(node: SyntaxNode, out: Stmt[]): void {
    this.nested(() => this.statementAt(node, out));
  }

  private statementAt(node: SyntaxNode, out: Stmt[]): void {
    const name = node.name;
    if (INERT_STATEMENTS.has(name)) return;
    if (EXPRESSION_STATEMENTS.has(name)) {
      out.push({ kind: 'expr', values: children(node).filter(isExpression).map((c) => this.expr(c)) });
      return;
    }
    switch (name) {
      case 'AssignStatement':
        this.assign(node, out);
        return;
      case 'UpdateStatement': {
        const [target, value] = children(node).filter(isExpression);
        if (target && value) out.push({ kind: 'assign', targets: [[this.expr(target)]], value: [this.expr(value)], augmented: true, ...this.loopMark() });
        return;
      }
      case 'ForStatement':
        this.forStatement(node, out);
        return;
      case 'WithStatement':
        this.withStatement(node, out);
        return;
      case 'FunctionDefinition':
        this.functionDefinition(node, out);
        return;
      case 'DecoratedStatement':
        for (const child of children(node)) {
          if (child.name === 'Decorator') out.push({ kind: 'expr', values: [this.decorator(child)] });
          else this.statement(child, out);
        }
        return;
      case 'ImportStatement': {
        // An import can rename a database function (`from tools import LoadDB as load`), bring in
        // a way to run code by name, or reach the data past the database functions (os, sqlite3).
        const names = children(node).filter((c) => c.name === 'VariableName').map((c) => this.text(c).toLowerCase());
        if (names.some((n) => RISKY_IMPORTS.has(n))) {
          this.skip(node);
          return;
        }
        const outside = importedModules(this.text(node)).filter((m) => !PURE_MODULES.has(m));
        if (outside.length > 0) this.skip(node, `imports ${outside.join(', ')}, which can reach files, processes or the network past the database functions`);
        return;
      }
      default:
        break;
    }
    if (BLOCK_STATEMENTS.has(name)) {
      for (const child of children(node)) {
        if (child.name === 'Body') {
          if (name === 'WhileStatement') this.loopBlock(child, out);
          else this.block(child, out);
        } else if (child.name === 'ArgList') out.push({ kind: 'expr', values: this.argList(child).args });
        // `except E as e`: E is evaluated; `class K`: K is a name being defined, not read.
        else if (isExpression(child) && !(name === 'ClassDefinition' && child.name === 'VariableName')) out.push({ kind: 'expr', values: [this.expr(child)] });
      }
      return;
    }
    // A statement the analysis does not follow (match, a new syntax): what it does is not known.
    this.skip(node);
  }

  private assign(node: SyntaxNode, out: Stmt[]): void {
    const groups: Expr[][] = [[]];
    for (const child of children(node)) {
      if (child.name === 'AssignOp') groups.push([]);
      else if (isExpression(child)) groups[groups.length - 1].push(this.expr(child));
    }
    // `x: int` (annotation only) binds nothing.
    if (groups.length < 2) return;
    out.push({ kind: 'assign', targets: groups.slice(0, -1), value: groups[groups.length - 1], augmented: false, ...this.loopMark() });
  }

  private forStatement(node: SyntaxNode, out: Stmt[]): void {
    const targets: string[] = [];
    const iter: Expr[] = [];
    let part: 'head' | 'targets' | 'iter' = 'head';
    for (const child of children(node)) {
      if (child.name === 'for') part = 'targets';
      else if (child.name === 'in' && part === 'targets') part = 'iter';
      else if (child.name === 'Body') {
        if (part !== 'head') out.push({ kind: 'for', targets, iter: iter.length === 1 ? iter[0] : { kind: 'seq', items: iter }, loop: true });
        part = 'head';
        this.loopBlock(child, out);
      } else if (isExpression(child)) {
        if (part === 'targets') targets.push(...this.boundNames(child));
        else iter.push(this.expr(child));
      }
    }
  }

  private withStatement(node: SyntaxNode, out: Stmt[]): void {
    let pending: Expr | null = null;
    let naming = false;
    for (const child of children(node)) {
      if (child.name === 'as') naming = true;
      else if (child.name === 'Body' || child.name === ',') {
        if (pending) out.push({ kind: 'with', value: pending, ...this.loopMark() });
        pending = null;
        if (child.name === 'Body') this.block(child, out);
      } else if (isExpression(child)) {
        if (naming && pending) {
          const [target] = this.boundNames(child);
          out.push({ kind: 'with', value: pending, ...(target ? { target } : {}), ...this.loopMark() });
          pending = null;
        } else pending = this.expr(child);
        naming = false;
      }
    }
  }

  private functionDefinition(node: SyntaxNode, out: Stmt[]): void {
    const parts = children(node);
    const name = parts.find((c) => c.name === 'VariableName');
    const paramList = parts.find((c) => c.name === 'ParamList');
    const { params, defaults } = paramList ? this.params(paramList) : { params: [], defaults: [] };
    if (defaults.length > 0) out.push({ kind: 'expr', values: defaults });
    out.push({ kind: 'def', name: name ? this.text(name) : '', params });
    for (const child of parts) if (child.name === 'Body') this.loopBlock(child, out);
  }

  /** A parameter list's names, and its default values (they run when the function is made). */
  private params(node: SyntaxNode): { params: string[]; defaults: Expr[] } {
    const params: string[] = [];
    const defaults: Expr[] = [];
    let afterAssign = false;
    for (const p of children(node)) {
      if (p.name === 'AssignOp') afterAssign = true;
      else if (p.name === ',') afterAssign = false;
      else if (p.name === 'VariableName' && !afterAssign) params.push(this.text(p));
      else if (isExpression(p) && afterAssign) defaults.push(this.expr(p));
    }
    return { params, defaults };
  }

  /** `@a.b(args)`: the decorator is called with the function, so it is read as a call. */
  private decorator(node: SyntaxNode): Expr {
    let expr: Expr | null = null;
    for (const child of children(node)) {
      if (child.name === 'VariableName') expr = expr ? { kind: 'attr', obj: expr, name: this.text(child) } : { kind: 'name', id: this.text(child) };
      else if (child.name === 'ArgList' && expr) expr = { kind: 'call', func: expr, ...this.argList(child) };
      else if (isExpression(child)) expr = this.expr(child);
    }
    return expr ?? { kind: 'ops', parts: [], operators: [] };
  }

  /** Names a target binds (`x`, `a, b`, `(i, j)`, `*rest`); subscripts and attributes bind none. */
  private boundNames(node: SyntaxNode): string[] {
    if (node.name === 'VariableName') return [this.text(node)];
    if (node.name === 'TupleExpression' || node.name === 'ArrayExpression' || node.name === 'ParenthesizedExpression') {
      return children(node).filter(isExpression).flatMap((c) => this.boundNames(c));
    }
    return [];
  }

  expr(node: SyntaxNode): Expr {
    return this.nested(() => this.exprAt(node));
  }

  private exprAt(node: SyntaxNode): Expr {
    switch (node.name) {
      case 'VariableName':
      case 'Boolean':
      case 'None':
        return { kind: 'name', id: this.text(node) };
      case 'Number':
        return { kind: 'num', value: this.text(node) };
      case 'String':
        return { kind: 'str', value: decodePythonString(this.text(node)) };
      case 'FormatString':
        return this.formatString(node);
      case 'ContinuedString': {
        // Adjacent literals concatenate, as in Python.
        const parts = children(node).filter(isExpression).map((c) => this.expr(c) as Extract<Expr, { kind: 'str' }>);
        const fields = parts.flatMap((p) => p.fields ?? []);
        if (fields.length === 0) return { kind: 'str', value: parts.map((p) => p.value).join('') };
        // The pieces around the fields, joined across the literals: a literal with no field is one piece.
        const pieces = [''];
        const formats: string[] = [];
        for (const p of parts) {
          const own = p.pieces ?? [p.value];
          pieces[pieces.length - 1] += own[0];
          pieces.push(...own.slice(1));
          formats.push(...(p.formats ?? []));
        }
        return { kind: 'str', value: parts.map((p) => p.value).join(''), fields, pieces, formats };
      }
      case 'CallExpression': {
        const [func, ...rest] = children(node);
        const args = rest.find((c) => c.name === 'ArgList');
        return { kind: 'call', func: this.expr(func), ...(args ? this.argList(args) : { args: [], kwargs: [] }) };
      }
      case 'MemberExpression':
        return this.member(node);
      case 'ParenthesizedExpression': {
        const inner = children(node).filter(isExpression);
        return inner.length === 1 ? this.expr(inner[0]) : { kind: 'seq', items: inner.map((c) => this.expr(c)) };
      }
      case 'ArrayExpression':
      case 'TupleExpression':
      case 'SetExpression':
        return { kind: 'seq', items: this.displayItems(children(node)) };
      case 'DictionaryExpression':
        return this.dictionary(node);
      case 'ArrayComprehensionExpression':
      case 'SetComprehensionExpression':
      case 'DictionaryComprehensionExpression':
      case 'ComprehensionExpression':
        return this.comprehension(children(node));
      case 'LambdaExpression': {
        const parts = children(node);
        const paramList = parts.find((c) => c.name === 'ParamList');
        const { params, defaults } = paramList ? this.params(paramList) : { params: [], defaults: [] };
        const body = parts.filter(isExpression);
        const lambda: Expr = { kind: 'lambda', params, body: body.length > 0 ? this.expr(body[body.length - 1]) : { kind: 'ops', parts: [], operators: [] } };
        // Default values run when the lambda is made: read them beside it.
        return defaults.length > 0 ? { kind: 'ops', parts: [...defaults, lambda], operators: [] } : lambda;
      }
      default: {
        // Operators (binary, unary, conditional, await, :=) and anything else: its parts, evaluated.
        const parts: Expr[] = [];
        const operators: string[] = [];
        for (const child of children(node)) {
          if (OPERATOR_NODES.has(child.name)) operators.push(child.name === 'ArithOp' || child.name === 'BitOp' || child.name === 'CompareOp' ? this.text(child) : child.name);
          else if (isExpression(child)) parts.push(this.expr(child));
          else if (child.name === 'AssignOp') operators.push(':=');
        }
        return { kind: 'ops', parts, operators };
      }
    }
  }

  private formatString(node: SyntaxNode): Expr {
    const { prefix, start, end } = stringLiteralParts(this.text(node));
    // The template: literal text with each `{...}` field as `{}`; the fields' expressions run, so they are read.
    const literal = (raw: string) => (prefix.includes('r') ? raw : decodeEscapes(raw)).replace(/\{\{|\}\}/g, (m) => m[0]);
    const pieces: string[] = [];
    const formats: string[] = [];
    let at = node.from + start;
    const fields: Expr[] = [];
    for (const child of children(node)) {
      if (child.name !== 'FormatReplacement') continue;
      pieces.push(literal(this.source.slice(at, child.from)));
      at = child.to;
      // One expression per field; a field with none (or more) cannot be read and counts as unknown.
      const inner = children(child).filter(isExpression);
      fields.push(inner.length === 1 ? this.expr(inner[0]) : { kind: 'ops', parts: inner.map((c) => this.expr(c)), operators: ['?'] });
      formats.push(
        children(child)
          .filter((c) => c.name === 'FormatConversion' || c.name === 'FormatSpec')
          .map((c) => this.text(c))
          .join(''),
      );
    }
    pieces.push(literal(this.source.slice(at, node.from + end)));
    const value = pieces.join('{}');
    return { kind: 'str', value, ...(fields.length > 0 ? { fields, pieces, formats } : {}) };
  }

  /** A list, tuple or set display's items; a `*x` spread is one unknown item (its elements are not known one by one). */
  private displayItems(nodes: SyntaxNode[]): Expr[] {
    const items: Expr[] = [];
    let spread = false;
    for (const c of nodes) {
      if (c.name === '*') spread = true;
      else if (isExpression(c)) {
        const item = this.expr(c);
        items.push(spread ? { kind: 'ops', parts: [item], operators: ['*'] } : item);
        spread = false;
      }
    }
    return items;
  }

  /** `{k: v, **d}`: key and value pairs; a spread has a null key. */
  private dictionary(node: SyntaxNode): Expr {
    const entries: Array<{ key: Expr | null; value: Expr }> = [];
    let key: Expr | null = null;
    let spread = false;
    for (const child of children(node)) {
      if (child.name === '**') spread = true;
      else if (child.name === ',') {
        key = null;
        spread = false;
      } else if (isExpression(child)) {
        if (spread) entries.push({ key: null, value: this.expr(child) });
        else if (key === null) key = this.expr(child);
        else {
          entries.push({ key, value: this.expr(child) });
          key = null;
        }
      } else if (child.name === 'for') {
        // A dict comprehension is read by the comprehension case; a stray `for` here is not followed.
        return this.comprehension(children(node));
      }
    }
    return { kind: 'dict', entries };
  }

  private member(node: SyntaxNode): Expr {
    const [objectNode, ...rest] = children(node);
    const obj = this.expr(objectNode);
    const property = rest.find((c) => c.name === 'PropertyName');
    if (property) return { kind: 'attr', obj, name: this.text(property) };
    if (rest.some((c) => c.name === ':')) {
      // A slice `obj[a:b:c]` (one, not a tuple of slices: those are read as unknown parts).
      if (rest.some((c) => c.name === ',')) return { kind: 'sub', obj, index: [{ kind: 'ops', parts: rest.filter(isExpression).map((c) => this.expr(c)), operators: ['?'] }] };
      const slice: Array<Expr | null> = [null];
      for (const c of rest) {
        if (c.name === ':') slice.push(null);
        else if (isExpression(c)) slice[slice.length - 1] = this.expr(c);
      }
      return { kind: 'sub', obj, index: [], slice };
    }
    return { kind: 'sub', obj, index: rest.filter(isExpression).map((c) => this.expr(c)) };
  }

  /** Call arguments: positional (a `*`/`**` spread counts as one), keyword, or a bare generator. */
  argList(node: SyntaxNode): { args: Expr[]; kwargs: Array<{ name: string; value: Expr }> } {
    const args: Expr[] = [];
    const kwargs: Array<{ name: string; value: Expr }> = [];
    const segments: SyntaxNode[][] = [[]];
    for (const child of children(node)) {
      if (child.name === '(' || child.name === ')') continue;
      if (child.name === ',') segments.push([]);
      else segments[segments.length - 1].push(child);
    }
    for (const segment of segments) {
      if (segment.some((c) => c.name === 'for')) args.push(this.comprehension(segment));
      else if (segment.length >= 3 && segment[0].name === 'VariableName' && segment[1].name === 'AssignOp') {
        kwargs.push({ name: this.text(segment[0]), value: this.expr(segment[2]) });
      } else if (segment.some((c) => c.name === '*' || c.name === '**')) {
        // `*args` / `**kwargs`: which argument lands where is not known; read as one unknown argument.
        args.push({ kind: 'ops', parts: segment.filter(isExpression).map((c) => this.expr(c)), operators: ['*'] });
      } else for (const c of segment) if (isExpression(c)) args.push(this.expr(c));
    }
    return { args, kwargs };
  }

  /** `element for targets in iter [if cond] ...`, from the nodes between the brackets. */
  private comprehension(nodes: SyntaxNode[]): Expr {
    const element: Expr[] = [];
    const clauses: Array<{ targets: string[]; iter: Expr }> = [];
    const conditions: Expr[] = [];
    let part: 'element' | 'targets' | 'iter' | 'condition' = 'element';
    let targets: string[] = [];
    for (const node of nodes) {
      if (node.name === 'for') {
        part = 'targets';
        targets = [];
      } else if (node.name === 'in' && part === 'targets') part = 'iter';
      else if (node.name === 'if' && part !== 'element') part = 'condition';
      else if (isExpression(node)) {
        if (part === 'element') element.push(this.expr(node));
        else if (part === 'targets') targets.push(...this.boundNames(node));
        else if (part === 'iter') clauses.push({ targets, iter: this.expr(node) });
        else conditions.push(this.expr(node));
      }
    }
    return { kind: 'comp', element, clauses, conditions };
  }
}

/** Strict: the first syntax error ends the parse. Error recovery is superlinear on hostile input (30,000 `)` took seconds), and code with any error is unanalysable anyway. */
const strictParser = parser.configure({ strict: true });

/**
 * Parse Python source with a real parser (@lezer/python) into loose statements. Code that is not
 * valid Python, and statements the analysis does not follow, are returned in `skipped` (the caller
 * treats code with any as unanalysable). Only over-deep nesting throws (CodeTooComplexError).
 */
export function parsePython(source: string): { statements: Stmt[]; skipped: string[] } {
  const text = String(source ?? '').replace(/\r\n?/g, '\n');
  let tree: Tree;
  try {
    tree = strictParser.parse(text);
  } catch (error) {
    // lezer reports where the parse stopped (`No parse at N`): shown, never interpreted.
    return { statements: [], skipped: [`the code is not valid Python (${describe(errorMessage(error))})`] };
  }
  const converter = new Converter(text);
  const statements: Stmt[] = [];
  converter.block(tree.topNode, statements);
  return { statements, skipped: converter.skipped };
}
