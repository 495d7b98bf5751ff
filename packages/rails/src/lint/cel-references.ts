import type { ASTNode } from '@marcbachmann/cel-js';
import { closestName, didYouMean, listNames } from '@guardagent/schemas';

/** The shape of cel-js's AST nodes: an operator and its arguments (nodes, names, literals, lists). */
interface Node {
  op: string;
  args: unknown;
  start?: number;
}

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && 'op' in value && 'args' in value;

/** What a condition may be checked against: the names the policy declares. */
export interface ReferenceScope {
  /** The tool the condition guards. */
  tool: string;
  /** The argument fields the tool's schema allows, level by level; null where any field may appear. */
  argsFields: (path: readonly string[]) => readonly string[] | null;
  /** Tools the policy names (rails.tools and every role's list). */
  tools: readonly string[];
  /** Roles of rails.roles. */
  roles: readonly string[];
  /** Functions and macros CEL knows here. */
  functions: ReadonlySet<string>;
}

/** A mistaken reference in a condition: what is wrong, and where in the expression (0-based). */
export interface ReferenceProblem {
  message: string;
  at: number;
}

const SUBJECT_FIELDS = ['id', 'roles', 'attributes'] as const;
/** Macros whose first argument names a variable bound over the receiver's items. */
const ITERATING = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/** `args.a.b` / `args["a"]` → { root: 'args', fields: ['a', 'b'] }; null for anything else. */
function memberChain(node: Node): { root: string; fields: string[] } | null {
  const fields: string[] = [];
  let at: Node = node;
  for (;;) {
    if (at.op === 'id' && typeof at.args === 'string') return { root: at.args, fields: fields.reverse() };
    const args = at.args as unknown[];
    if (at.op === '.' && Array.isArray(args) && isNode(args[0]) && typeof args[1] === 'string') {
      fields.push(args[1]);
      at = args[0];
    } else if (at.op === '[]' && Array.isArray(args) && isNode(args[0]) && isNode(args[1]) && args[1].op === 'value' && typeof args[1].args === 'string') {
      fields.push(args[1].args);
      at = args[0];
    } else {
      return null;
    }
  }
}

const stringValue = (node: unknown): string | null => (isNode(node) && node.op === 'value' && typeof node.args === 'string' ? node.args : null);
const isChain = (node: unknown, root: string, fields: readonly string[]): boolean => {
  if (!isNode(node)) return false;
  const chain = memberChain(node);
  return chain !== null && chain.root === root && chain.fields.length === fields.length && chain.fields.every((f, i) => f === fields[i]);
};

/**
 * The references in a parsed condition that cannot be what the author meant: an argument the
 * tool's schema does not allow, a field `subject` does not have, a role rails.roles does not
 * declare, a tool the policy does not name, a function CEL does not know. Each comes with the
 * closest known name when one is close.
 */
export function referenceProblems(ast: ASTNode, scope: ReferenceScope): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  const seen = new Set<string>();
  const report = (message: string, node: Node) => {
    if (seen.has(message)) return;
    seen.add(message);
    problems.push({ message, at: node.start ?? 0 });
  };
  const checkRole = (role: string, node: Node) => {
    if (scope.roles.includes(role)) return;
    const declared = scope.roles.length > 0 ? ` (${listNames([...scope.roles])})` : ' (none is declared)';
    report(`'${role}' is not a role of rails.roles${declared}: declare it there (with tools: [] if it may call no tool) to test for it${didYouMean(role, scope.roles)}`, node);
  };
  const checkTool = (tool: string, node: Node) => {
    if (scope.tools.includes(tool)) return;
    report(`'${tool}' is not a tool this policy names (rails.tools, rails.roles)${didYouMean(tool, scope.tools)}`, node);
  };

  const visit = (value: unknown, bound: ReadonlySet<string>): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item, bound);
      return;
    }
    if (!isNode(value)) return;
    const node = value;
    const args = node.args as unknown[];

    const chain = node.op === '.' || node.op === '[]' || node.op === 'id' ? memberChain(node) : null;
    if (chain && !bound.has(chain.root)) {
      if (chain.root === 'subject' && chain.fields.length > 0 && !(SUBJECT_FIELDS as readonly string[]).includes(chain.fields[0])) {
        report(`subject has no field '${chain.fields[0]}' (it has ${SUBJECT_FIELDS.join(', ')})${didYouMean(chain.fields[0], SUBJECT_FIELDS)}`, node);
      }
      if (chain.root === 'args') {
        for (let depth = 0; depth < chain.fields.length; depth++) {
          const allowed = scope.argsFields(chain.fields.slice(0, depth));
          const field = chain.fields[depth];
          if (allowed === null) break;
          if (!allowed.includes(field)) {
            const where = depth === 0 ? `the args schema of '${scope.tool}'` : `args.${chain.fields.slice(0, depth).join('.')} in the args schema of '${scope.tool}'`;
            const known = allowed.length > 0 ? `has ${listNames([...allowed])}` : 'has no fields';
            report(`unknown argument '${chain.fields.slice(0, depth + 1).join('.')}': ${where} ${known}, so it is never there${didYouMean(field, allowed)}`, node);
            break;
          }
        }
      }
      // A member chain's own parts are names, not expressions: nothing more to visit, except index expressions.
      if (node.op !== '[]') return;
    }

    // Roles: 'x' in subject.roles; subject.roles.exists(r, r == 'x').
    if (node.op === 'in' && Array.isArray(args)) {
      const literal = stringValue(args[0]);
      if (literal !== null && isChain(args[1], 'subject', ['roles'])) checkRole(literal, node);
      if (isChain(args[0], 'tool', [])) {
        const list = isNode(args[1]) && args[1].op === 'list' && Array.isArray(args[1].args) ? (args[1].args as unknown[]) : [];
        for (const item of list) {
          const name = stringValue(item);
          if (name !== null && isNode(item)) checkTool(name, item);
        }
      }
    }
    // Tools: tool == 'x', tool != 'x'.
    if ((node.op === '==' || node.op === '!=') && Array.isArray(args)) {
      const [left, right] = args;
      if (isChain(left, 'tool', []) && stringValue(right) !== null) checkTool(stringValue(right) as string, right as Node);
      if (isChain(right, 'tool', []) && stringValue(left) !== null) checkTool(stringValue(left) as string, left as Node);
    }

    if ((node.op === 'rcall' || node.op === 'call') && Array.isArray(args) && typeof args[0] === 'string') {
      const name = args[0];
      if (!scope.functions.has(name)) {
        const hint = closestName(name, scope.functions);
        report(`unknown function '${name}'${hint ? `; did you mean '${hint}'?` : ''}`, node);
      }
      if (node.op === 'rcall') {
        const receiver = args[1];
        const callArgs = Array.isArray(args[2]) ? (args[2] as unknown[]) : [];
        const variable = ITERATING.has(name) && isNode(callArgs[0]) && callArgs[0].op === 'id' ? (callArgs[0].args as string) : null;
        if (variable !== null && isChain(receiver, 'subject', ['roles'])) {
          // subject.roles.exists(r, r == 'admin'): the literals compared with the variable are roles.
          const compare = (inner: unknown): void => {
            if (Array.isArray(inner)) {
              for (const item of inner) compare(item);
              return;
            }
            if (!isNode(inner)) return;
            const pair = inner.args as unknown[];
            if ((inner.op === '==' || inner.op === '!=') && Array.isArray(pair)) {
              if (isChain(pair[0], variable, []) && stringValue(pair[1]) !== null) checkRole(stringValue(pair[1]) as string, pair[1] as Node);
              if (isChain(pair[1], variable, []) && stringValue(pair[0]) !== null) checkRole(stringValue(pair[0]) as string, pair[0] as Node);
            }
            compare(inner.args);
          };
          compare(callArgs.slice(1));
        }
        visit(receiver, bound);
        visit(callArgs, variable !== null ? new Set([...bound, variable]) : bound);
        return;
      }
      visit(args[1], bound);
      return;
    }
    visit(node.args, bound);
  };
  visit(ast, new Set());
  return problems;
}
