import { Environment, ParseError, type ASTNode } from '@marcbachmann/cel-js';
import type { FieldIssue } from '@guardagent/errors';
import { compileLinearRegExp } from './linear-regexp';
import { rewriteMatchesCalls } from './cel-linear-matches';

/** Variables a rail condition can read. Everything else is an unknown variable (a compile error). */
export interface ConditionContext {
  subject: { id: string; roles: string[]; attributes: Record<string, unknown> };
  args: Record<string, unknown>;
  tool: string;
}

export type Condition = (context: ConditionContext) => unknown;

// One environment for the process: it only declares variables, so sharing it across policies is safe,
// and creating it is the expensive part (cel-js docs). Limits bound what a policy author can make us parse.
/** The function every `matches()` call becomes; not a name policies are expected to use. */
const LINEAR_MATCHES = 'linearMatches';

let environment: Environment | undefined;
function celEnvironment(): Environment {
  environment ??= new Environment({
    limits: { maxAstNodes: 2000, maxDepth: 64, maxListElements: 256, maxMapEntries: 256, maxCallArguments: 16 },
  })
    .registerVariable('subject', 'map')
    .registerVariable('args', 'map')
    .registerVariable('tool', 'string')
    // What every matches() call is rewritten to (see cel-linear-matches.ts): RE2 semantics, as the
    // CEL spec defines matches(), in linear time. The pattern may come from args: it is compiled by
    // RE2 too, so no input can make it backtrack.
    .registerFunction(`${LINEAR_MATCHES}(string, string): bool`, (text: string, pattern: string) => compileLinearRegExp(pattern).test(text));
  return environment;
}

/** Functions and macros a condition may call (CEL's built-ins and cel-js's, as the environment registers them). */
let functionNames: ReadonlySet<string> | undefined;
export function celFunctionNames(): ReadonlySet<string> {
  functionNames ??= new Set([
    ...celEnvironment()
      .getDefinitions()
      .functions.map((f) => f.name)
      .filter((name) => name !== LINEAR_MATCHES),
    'has', 'all', 'exists', 'exists_one', 'map', 'filter',
  ]);
  return functionNames;
}

/** The AST of a condition as written (before matches() is rewritten), for checks of what it names; null if it does not parse. */
export function parseConditionAst(expression: string): ASTNode | null {
  try {
    return celEnvironment().parse(expression).ast;
  } catch {
    return null;
  }
}

/**
 * Where cel-js's message points in the expression (its excerpt: `>    1 | expr` and a caret line
 * under it), 1-based; null when it shows none.
 */
function caretColumn(message: string): number | null {
  const lines = message.split('\n');
  const code = lines.findIndex((line) => line.startsWith('>') && line.includes(' | '));
  const caret = code >= 0 ? lines[code + 1] : undefined;
  if (caret === undefined || !caret.includes('^')) return null;
  return caret.indexOf('^') - (lines[code].indexOf(' | ') + 3) + 1;
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

/**
 * Parse and type-check a CEL condition once. Returns the callable or a field issue at `path`
 * (syntax errors, unknown variables, non-boolean results).
 */
export function compileCondition(expression: string, path: string): Condition | FieldIssue {
  const problem = (message: string, showColumn: boolean): FieldIssue => {
    const column = showColumn ? caretColumn(message) : null;
    return { path, message: `invalid CEL expression: ${firstLine(message)}${column !== null && column > 0 ? ` (at column ${column} of the expression)` : ''}` };
  };
  let original: ReturnType<Environment['parse']>;
  let program: ReturnType<Environment['parse']>;
  try {
    original = celEnvironment().parse(expression);
    const linear = rewriteMatchesCalls(original.ast, LINEAR_MATCHES);
    if (typeof linear !== 'string') return { path, message: `invalid CEL expression: ${linear.problem}` };
    program = celEnvironment().parse(linear);
  } catch (error) {
    return problem(error instanceof ParseError ? error.message : String((error as Error)?.message ?? error), true);
  }
  const checked = program.check();
  if (!checked.valid) {
    // Said as the expression was written where it fails there too (its columns are the author's,
    // not the rewritten text's); `matches(x, p)` only passes once rewritten.
    const asWritten = original.check();
    return asWritten.valid ? problem(checked.error?.message ?? 'type error', false) : problem(asWritten.error?.message ?? 'type error', true);
  }
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    return { path, message: `a condition must be a boolean expression, this one is ${checked.type}` };
  }
  return program as Condition;
}

export function isFieldIssue(value: unknown): value is FieldIssue {
  return typeof value === 'object' && value !== null && 'path' in value && 'message' in value;
}

/** Evaluate a compiled condition: true, false, or an error message (a missing key, a non-boolean result). */
export function runCondition(condition: Condition, context: ConditionContext): boolean | string {
  try {
    const value = condition(context);
    if (typeof value === 'boolean') return value;
    return `condition returned ${value === null ? 'null' : typeof value}, not a boolean`;
  } catch (error) {
    return firstLine((error as Error)?.message ?? String(error));
  }
}
