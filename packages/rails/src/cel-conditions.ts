import { Environment, ParseError } from '@marcbachmann/cel-js';
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

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

/**
 * Parse and type-check a CEL condition once. Returns the callable or a field issue at `path`
 * (syntax errors, unknown variables, non-boolean results).
 */
export function compileCondition(expression: string, path: string): Condition | FieldIssue {
  let program: ReturnType<Environment['parse']>;
  try {
    const linear = rewriteMatchesCalls(celEnvironment().parse(expression).ast, LINEAR_MATCHES);
    if (typeof linear !== 'string') return { path, message: `invalid CEL expression: ${linear.problem}` };
    program = celEnvironment().parse(linear);
  } catch (error) {
    const message = error instanceof ParseError ? error.message : String((error as Error)?.message ?? error);
    return { path, message: `invalid CEL expression: ${firstLine(message)}` };
  }
  const checked = program.check();
  if (!checked.valid) {
    return { path, message: `invalid CEL expression: ${firstLine(checked.error?.message ?? 'type error')}` };
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
