import { serialize, type ASTNode } from '@marcbachmann/cel-js';
import { compileLinearRegExp, UnsupportedPatternError } from './linear-regexp';

/** The shape `serialize` reads: an operator and its arguments (nodes, strings, literals, lists). */
type Node = { op: string; args: unknown };

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && 'op' in value && 'args' in value;
}

/**
 * CEL's built-in `matches()` in cel-js runs V8's backtracking RegExp: a tenant's `^(a+)+$` on 41
 * characters took 147 s here. cel-js cannot replace a built-in overload, so a condition is
 * rewritten before it is compiled: every `x.matches(p)` and `matches(x, p)` becomes
 * `linearMatches(x, p)`, which runs RE2 (the engine the CEL spec names for matches()). The AST is
 * rewritten and printed back with cel-js's own serializer, then compiled as usual. A literal
 * pattern RE2 cannot run is refused here, at policy load, with the reason.
 */
export function rewriteMatchesCalls(ast: ASTNode, linearName: string): string | { problem: string } {
  let problem: string | null = null;
  const check = (pattern: unknown) => {
    if (!isNode(pattern) || pattern.op !== 'value' || typeof pattern.args !== 'string' || problem) return;
    try {
      compileLinearRegExp(pattern.args);
    } catch (error) {
      if (!(error instanceof UnsupportedPatternError)) throw error;
      problem = `matches(): ${error.message}`;
    }
  };
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (!isNode(value)) return value;
    const args = value.args as unknown[];
    if (value.op === 'rcall' && args[0] === 'matches' && Array.isArray(args[2]) && args[2].length === 1) {
      check(args[2][0]);
      return { op: 'call', args: [linearName, [rewrite(args[1]), rewrite(args[2][0])]] };
    }
    if (value.op === 'call' && args[0] === 'matches' && Array.isArray(args[1]) && args[1].length === 2) {
      check(args[1][1]);
      return { op: 'call', args: [linearName, rewrite(args[1])] };
    }
    return { op: value.op, args: rewrite(value.args) };
  };
  const rewritten = rewrite(ast) as ASTNode;
  if (problem) return { problem };
  return serialize(rewritten);
}
