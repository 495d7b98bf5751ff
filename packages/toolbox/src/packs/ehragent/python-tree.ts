/** Deepest nesting (of expressions and of blocks) followed; deeper code raises CodeTooComplexError. */
export const MAX_NESTING = 200;

/**
 * A deliberately loose Python expression tree: precise about calls, subscripts, attributes, names,
 * literals and comprehensions (what decides which table and column code reads); every operator
 * chain becomes `ops`, and a construct the analysis has no use for becomes `ops` of its parts.
 */
export type Expr =
  | { kind: 'name'; id: string }
  /**
   * A string literal. An f-string's `value` has `{}` for each field; `fields` are the fields'
   * expressions (they run, so they are read too), `pieces` the literal text around them (one more
   * than the fields) and `formats` each field's conversion and format spec as written ("!r:>3", "").
   */
  | { kind: 'str'; value: string; fields?: Expr[]; pieces?: string[]; formats?: string[] }
  | { kind: 'num'; value: string }
  | { kind: 'call'; func: Expr; args: Expr[]; kwargs: Array<{ name: string; value: Expr }> }
  | { kind: 'attr'; obj: Expr; name: string }
  /** `obj[a, b]`; or a slice `obj[start:stop:step]` (`slice` holds the three parts, null where left out). */
  | { kind: 'sub'; obj: Expr; index: Expr[]; slice?: Array<Expr | null> }
  | { kind: 'seq'; items: Expr[] }
  /** A dict display; a `**spread` entry has a null key. */
  | { kind: 'dict'; entries: Array<{ key: Expr | null; value: Expr }> }
  | { kind: 'comp'; element: Expr[]; clauses: Array<{ targets: string[]; iter: Expr }>; conditions: Expr[] }
  | { kind: 'lambda'; params: string[]; body: Expr }
  | { kind: 'ops'; parts: Expr[]; operators: string[] };

/** Statements in source order, blocks flattened (the analysis is flow-insensitive). */
/**
 * `loop` marks a binding inside a loop body (or a function body, which may run many times): a
 * name bound there may hold any of its values where it is read.
 */
export type Stmt =
  | { kind: 'assign'; targets: Expr[][]; value: Expr[]; augmented: boolean; loop?: boolean }
  | { kind: 'for'; targets: string[]; iter: Expr; loop?: boolean }
  | { kind: 'with'; value: Expr; target?: string; loop?: boolean }
  | { kind: 'def'; name: string; params: string[] }
  | { kind: 'expr'; values: Expr[] };
