/** Deepest nesting (of expressions and of blocks) followed; deeper code raises CodeTooComplexError. */
export const MAX_NESTING = 200;

/**
 * A deliberately loose Python expression tree: precise about calls, subscripts, attributes, names,
 * literals and comprehensions (what decides which table and column code reads); every operator
 * chain becomes `ops`, and a construct the analysis has no use for becomes `ops` of its parts.
 */
export type Expr =
  | { kind: 'name'; id: string }
  /** An f-string's `value` has `{}` for each field; `fields` are the fields' expressions (they run, so they are read too). */
  | { kind: 'str'; value: string; fields?: Expr[] }
  | { kind: 'num'; value: string }
  | { kind: 'call'; func: Expr; args: Expr[]; kwargs: Array<{ name: string; value: Expr }> }
  | { kind: 'attr'; obj: Expr; name: string }
  | { kind: 'sub'; obj: Expr; index: Expr[] }
  | { kind: 'seq'; items: Expr[] }
  | { kind: 'comp'; element: Expr[]; clauses: Array<{ targets: string[]; iter: Expr }>; conditions: Expr[] }
  | { kind: 'lambda'; params: string[]; body: Expr }
  | { kind: 'ops'; parts: Expr[]; operators: string[] };

/** Statements in source order, blocks flattened (the analysis is flow-insensitive). */
export type Stmt =
  | { kind: 'assign'; targets: Expr[][]; value: Expr[]; augmented: boolean }
  | { kind: 'for'; targets: string[]; iter: Expr }
  | { kind: 'with'; value: Expr; target?: string }
  | { kind: 'def'; name: string; params: string[] }
  | { kind: 'expr'; values: Expr[] };
