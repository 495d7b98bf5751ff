import type { Token } from './python-tokenizer';
import { CodeTooComplexError } from './code-too-complex-error';

/** Deepest expression nesting followed; deeper code raises CodeTooComplexError. */
export const MAX_NESTING = 200;

/**
 * A deliberately loose Python expression tree: precise about calls, subscripts, attributes, names,
 * literals and comprehensions (what decides which table and column code reads); every operator
 * chain collapses into `ops`.
 */
export type Expr =
  | { kind: 'name'; id: string }
  | { kind: 'str'; value: string; fstring: boolean }
  | { kind: 'num'; value: string }
  | { kind: 'call'; func: Expr; args: Expr[]; kwargs: Array<{ name: string; value: Expr }> }
  | { kind: 'attr'; obj: Expr; name: string }
  | { kind: 'sub'; obj: Expr; index: Expr[] }
  | { kind: 'seq'; items: Expr[] }
  | { kind: 'comp'; element: Expr[]; clauses: Array<{ targets: string[]; iter: Expr }>; conditions: Expr[] }
  | { kind: 'lambda'; params: string[]; body: Expr }
  | { kind: 'ops'; parts: Expr[]; operators: string[] };

export type Stmt =
  | { kind: 'assign'; targets: Expr[][]; value: Expr[]; augmented: boolean }
  | { kind: 'for'; targets: string[]; iter: Expr }
  | { kind: 'with'; value: Expr; target?: string }
  | { kind: 'def'; name: string; params: string[] }
  | { kind: 'expr'; values: Expr[] };

const STOP = new Set([',', ')', ']', '}', ':', '=', 'newline']);
const BINARY = new Set([
  '+', '-', '*', '/', '//', '%', '**', '@', '<', '>', '<=', '>=', '==', '!=', '&', '|', '^', '<<', '>>', ':=',
]);
const AUGMENTED = new Set(['+=', '-=', '*=', '/=', '//=', '%=', '**=', '&=', '|=', '^=', '>>=', '<<=']);
const KEYWORD_OPS = new Set(['and', 'or', 'not', 'in', 'is', 'if', 'else', 'await']);

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.pos + offset];
  }

  private isOp(value: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t !== undefined && t.kind === 'op' && t.value === value;
  }

  private isName(value: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t !== undefined && t.kind === 'name' && t.value === value;
  }

  private atStop(extra?: ReadonlySet<string>): boolean {
    const t = this.peek();
    if (!t) return true;
    if (t.kind === 'newline') return true;
    if (t.kind === 'op' && (STOP.has(t.value) || AUGMENTED.has(t.value))) return true;
    if (t.kind === 'name' && extra?.has(t.value)) return true;
    return false;
  }

  /**
   * Tokens the parser passed over without reading them, one entry per stretch (a logical line's
   * rest). Whatever is in them was not analysed: the caller treats code with any as unanalysable.
   */
  readonly skipped: string[] = [];

  /** Skip to the end of the current logical line (used to recover from anything unexpected); `record` notes what was skipped. */
  private skipLine(record = true): void {
    const from = this.pos;
    while (this.peek() && this.peek()!.kind !== 'newline') this.pos++;
    if (record && this.pos > from) this.skipped.push(describeTokens(this.tokens.slice(from, this.pos)));
  }

  parseModule(): Stmt[] {
    const out: Stmt[] = [];
    while (this.peek()) {
      if (this.peek()!.kind === 'newline') {
        this.pos++;
        continue;
      }
      const start = this.pos;
      try {
        this.parseStatement(out);
      } catch (error) {
        if (error instanceof CodeTooComplexError) throw error;
        this.pos = start;
        this.skipLine();
      }
      if (this.pos === start) {
        this.skipped.push(describeTokens([this.peek()!]));
        this.pos++;
      }
    }
    return out;
  }

  /** Parse one simple or compound-header statement; a body on the same line after ':' follows. */
  private parseStatement(out: Stmt[]): void {
    const t = this.peek()!;
    if (t.kind === 'name') {
      switch (t.value) {
        case 'import':
        case 'from': {
          // An import can rename a database function (`from tools import LoadDB as load`) or bring
          // in a way to run code by name; the rest (pandas, datetime...) reads no table.
          const start = this.pos;
          this.skipLine(false);
          const names = this.tokens.slice(start, this.pos).filter((tok) => tok.kind === 'name').map((tok) => tok.value.toLowerCase());
          if (names.some((n) => RISKY_IMPORTS.has(n))) this.skipped.push(describeTokens(this.tokens.slice(start, this.pos)));
          return;
        }
        case 'global':
        case 'nonlocal':
        case 'pass':
        case 'break':
        case 'continue':
          this.skipLine(false);
          return;
        case 'for':
        case 'async':
          if (t.value === 'async') this.pos++;
          if (this.isName('for')) {
            this.pos++;
            const targets = this.parseTargetNames(new Set(['in']));
            if (this.isName('in')) this.pos++;
            const iter = this.parseExprList();
            out.push({ kind: 'for', targets, iter: iter.length === 1 ? iter[0] : { kind: 'seq', items: iter } });
            this.afterHeader(out);
            return;
          }
          break;
        case 'if':
        case 'elif':
        case 'while':
        case 'return':
        case 'yield':
        case 'del':
        case 'assert':
        case 'raise':
        case 'print': {
          this.pos++;
          const values = this.atStop() ? [] : this.parseExprList();
          out.push({ kind: 'expr', values });
          if (t.value === 'if' || t.value === 'elif' || t.value === 'while') this.afterHeader(out);
          else this.skipLine();
          return;
        }
        case 'else':
        case 'try':
        case 'finally':
          this.pos++;
          this.afterHeader(out);
          return;
        case 'except':
          this.pos++;
          while (this.peek() && !this.isOp(':') && this.peek()!.kind !== 'newline') this.pos++;
          this.afterHeader(out);
          return;
        case 'with': {
          this.pos++;
          for (;;) {
            const value = this.parseExpr(new Set(['as']));
            let target: string | undefined;
            if (this.isName('as')) {
              this.pos++;
              target = this.peek()?.value;
              this.pos++;
            }
            out.push({ kind: 'with', value, target });
            if (!this.isOp(',')) break;
            this.pos++;
          }
          this.afterHeader(out);
          return;
        }
        case 'def':
        case 'class': {
          this.pos++;
          const name = this.peek()?.value ?? '';
          this.pos++;
          const params: string[] = [];
          if (this.isOp('(')) {
            let depth = 0;
            do {
              const tok = this.peek()!;
              if (tok.kind === 'op' && '([{'.includes(tok.value)) depth++;
              else if (tok.kind === 'op' && ')]}'.includes(tok.value)) depth--;
              else if (tok.kind === 'name' && depth === 1 && (this.isOp('(', -1) || this.isOp(',', -1) || this.isOp('*', -1) || this.isOp('**', -1))) params.push(tok.value);
              this.pos++;
            } while (depth > 0 && this.peek());
          }
          if (t.value === 'def') out.push({ kind: 'def', name, params });
          while (this.peek() && !this.isOp(':') && this.peek()!.kind !== 'newline') this.pos++;
          this.afterHeader(out);
          return;
        }
        default:
          break;
      }
    }
    // Expression statement or (chained / augmented / tuple) assignment.
    const groups: Expr[][] = [this.parseExprList()];
    let augmented = false;
    while (this.peek()?.kind === 'op' && (this.peek()!.value === '=' || AUGMENTED.has(this.peek()!.value))) {
      augmented ||= this.peek()!.value !== '=';
      this.pos++;
      groups.push(this.parseExprList());
    }
    if (this.isOp(':')) {
      // Annotated assignment `x: int = 3`; keep only the value side.
      this.pos++;
      this.parseExpr();
      if (this.isOp('=')) {
        this.pos++;
        groups.push(this.parseExprList());
      }
    }
    if (groups.length === 1) out.push({ kind: 'expr', values: groups[0] });
    else out.push({ kind: 'assign', targets: groups.slice(0, -1), value: groups[groups.length - 1], augmented });
    this.skipLine();
  }

  /** After a compound header: consume ':' and parse a same-line body, if any. */
  private afterHeader(out: Stmt[]): void {
    if (this.isOp(':')) this.pos++;
    if (!this.peek() || this.peek()!.kind === 'newline') return;
    if (++this.depth > MAX_NESTING) throw new CodeTooComplexError(MAX_NESTING);
    try {
      this.parseStatement(out);
    } finally {
      this.depth--;
    }
  }

  /** Names bound by a `for`/lambda target list, up to a stop word, ':' or the end of the line. */
  private parseTargetNames(stop: ReadonlySet<string>): string[] {
    const names: string[] = [];
    for (let t = this.peek(); t; t = this.peek()) {
      if (t.kind === 'newline' || (t.kind === 'op' && t.value === ':')) break;
      if (t.kind === 'name' && stop.has(t.value)) break;
      if (t.kind === 'name') names.push(t.value);
      this.pos++;
    }
    return names;
  }

  parseExprList(stopWords?: ReadonlySet<string>): Expr[] {
    const items: Expr[] = [];
    while (!this.atStop(stopWords)) {
      items.push(this.parseExpr(stopWords));
      if (!this.isOp(',')) break;
      this.pos++;
    }
    return items;
  }

  parseExpr(stopWords?: ReadonlySet<string>): Expr {
    if (++this.depth > MAX_NESTING) throw new CodeTooComplexError(MAX_NESTING);
    try {
      return this.parseExprAt(stopWords);
    } finally {
      this.depth--;
    }
  }

  private parseExprAt(stopWords?: ReadonlySet<string>): Expr {
    const parts: Expr[] = [];
    const operators: string[] = [];
    for (;;) {
      const t = this.peek();
      if (!t || this.atStop(stopWords)) break;
      if (t.kind === 'name' && t.value === 'lambda') {
        this.pos++;
        const params = this.parseTargetNames(new Set());
        if (this.isOp(':')) this.pos++;
        parts.push({ kind: 'lambda', params, body: this.parseExpr(stopWords) });
        continue;
      }
      if (t.kind === 'name' && (t.value === 'for' || t.value === 'async')) break; // comprehension clause
      if ((t.kind === 'name' && KEYWORD_OPS.has(t.value)) || (t.kind === 'op' && (BINARY.has(t.value) || t.value === '~'))) {
        operators.push(t.value);
        this.pos++;
        continue;
      }
      const before = this.pos;
      parts.push(this.parsePostfix());
      if (this.pos === before) {
        this.pos++;
      }
    }
    if (parts.length === 1 && operators.length === 0) return parts[0];
    return { kind: 'ops', parts, operators };
  }

  private parsePostfix(): Expr {
    let expr = this.parseAtom();
    for (;;) {
      if (this.isOp('(')) {
        this.pos++;
        const args: Expr[] = [];
        const kwargs: Array<{ name: string; value: Expr }> = [];
        while (this.peek() && !this.isOp(')')) {
          if (this.peek()!.kind === 'name' && this.isOp('=', 1)) {
            const name = this.peek()!.value;
            this.pos += 2;
            kwargs.push({ name, value: this.parseExpr() });
          } else {
            if (this.isOp('*') || this.isOp('**')) this.pos++;
            const arg = this.parseExpr();
            args.push(this.isName('for') || this.isName('async') ? this.parseComprehension([arg]) : arg);
          }
          if (this.isOp(',')) this.pos++;
          else if (!this.isOp(')')) this.pos++;
        }
        if (this.isOp(')')) this.pos++;
        expr = { kind: 'call', func: expr, args, kwargs };
      } else if (this.isOp('[')) {
        this.pos++;
        const index: Expr[] = [];
        while (this.peek() && !this.isOp(']')) {
          if (this.isOp(':') || this.isOp(',')) {
            this.pos++;
            continue;
          }
          const before = this.pos;
          index.push(this.parseExpr());
          if (this.pos === before) this.pos++;
        }
        if (this.isOp(']')) this.pos++;
        expr = { kind: 'sub', obj: expr, index };
      } else if (this.isOp('.') && this.peek(1)?.kind === 'name') {
        this.pos++;
        const name = this.peek()!.value;
        this.pos++;
        expr = { kind: 'attr', obj: expr, name };
      } else {
        return expr;
      }
    }
  }

  private parseAtom(): Expr {
    const t = this.peek()!;
    if (t.kind === 'string') {
      // Adjacent literals concatenate, as in Python.
      let value = '';
      let fstring = false;
      while (this.peek()?.kind === 'string') {
        value += this.peek()!.value;
        fstring ||= (this.peek()!.prefix ?? '').includes('f');
        this.pos++;
      }
      return { kind: 'str', value, fstring };
    }
    if (t.kind === 'number') {
      this.pos++;
      return { kind: 'num', value: t.value };
    }
    if (t.kind === 'name') {
      this.pos++;
      return { kind: 'name', id: t.value };
    }
    if (t.kind === 'op' && (t.value === '(' || t.value === '[' || t.value === '{')) {
      const close = t.value === '(' ? ')' : t.value === '[' ? ']' : '}';
      this.pos++;
      const items: Expr[] = [];
      while (this.peek() && !this.isOp(close)) {
        if (this.isOp(',') || this.isOp(':')) {
          this.pos++;
          continue;
        }
        if (this.isOp('*') || this.isOp('**')) this.pos++;
        const before = this.pos;
        const item = this.parseExpr();
        if (this.isName('for') || this.isName('async')) {
          items.push(this.parseComprehension([...items.splice(0), item]));
          continue;
        }
        items.push(item);
        if (this.pos === before) this.pos++;
      }
      if (this.isOp(close)) this.pos++;
      return items.length === 1 && t.value === '(' ? items[0] : { kind: 'seq', items };
    }
    this.pos++;
    return { kind: 'ops', parts: [], operators: [t.value] };
  }

  /** `element for targets in iter [if cond] ...` (the element is already parsed). */
  private parseComprehension(element: Expr[]): Expr {
    const clauses: Array<{ targets: string[]; iter: Expr }> = [];
    const conditions: Expr[] = [];
    const stop = new Set(['for', 'if', 'async']);
    while (this.isName('for') || this.isName('async') || this.isName('if')) {
      if (this.isName('async')) this.pos++;
      if (this.isName('if')) {
        this.pos++;
        conditions.push(this.parseExpr(stop));
        continue;
      }
      this.pos++;
      const targets = this.parseTargetNames(new Set(['in']));
      if (this.isName('in')) this.pos++;
      clauses.push({ targets, iter: this.parseExpr(stop) });
    }
    return { kind: 'comp', element, clauses, conditions };
  }
}

/** Imports that can rename a database function or run code by name. */
const RISKY_IMPORTS = new Set(['loaddb', 'filterdb', 'getvalue', 'sqlinterpreter', 'importlib', 'builtins', '__builtins__']);

/** A short, readable rendering of skipped tokens for a reason string. */
function describeTokens(tokens: Token[]): string {
  const text = tokens.map((t) => (t.kind === 'string' ? JSON.stringify(t.value) : t.value)).join(' ');
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Parse tokens into loose statements. Unparseable lines are skipped; only over-deep nesting throws (CodeTooComplexError). */
export function parsePython(tokens: Token[]): Stmt[] {
  return new Parser(tokens).parseModule();
}

/** Like parsePython, also returning what was skipped unread (see Parser.skipped). */
export function parsePythonReporting(tokens: Token[]): { statements: Stmt[]; skipped: string[] } {
  const parser = new Parser(tokens);
  const statements = parser.parseModule();
  return { statements, skipped: parser.skipped };
}
