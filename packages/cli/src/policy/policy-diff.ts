/** One difference between two versions of a policy, at a field path (`rails.tools.x.authorize[0].when`). */
export interface PolicyChange {
  path: string;
  kind: 'added' | 'removed' | 'changed';
  from?: unknown;
  to?: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const join = (path: string, key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key);

/** The differences between `from` and `to`, field by field (objects by key, lists by position), in key order. */
export function diffPolicies(from: unknown, to: unknown, path = ''): PolicyChange[] {
  if (isObject(from) && isObject(to)) {
    const keys = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort();
    return keys.flatMap((key) => {
      if (!(key in to)) return [{ path: join(path, key), kind: 'removed' as const, from: from[key] }];
      if (!(key in from)) return [{ path: join(path, key), kind: 'added' as const, to: to[key] }];
      return diffPolicies(from[key], to[key], join(path, key));
    });
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    const out: PolicyChange[] = [];
    for (let i = 0; i < Math.max(from.length, to.length); i++) {
      if (i >= to.length) out.push({ path: join(path, i), kind: 'removed', from: from[i] });
      else if (i >= from.length) out.push({ path: join(path, i), kind: 'added', to: to[i] });
      else out.push(...diffPolicies(from[i], to[i], join(path, i)));
    }
    return out;
  }
  return JSON.stringify(from) === JSON.stringify(to) ? [] : [{ path, kind: 'changed', from, to }];
}

/** A value on one line, cut at 200 characters. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/** The changes as lines: `~ path: from → to`, `+ path: value`, `- path: value`. */
export function formatChanges(changes: readonly PolicyChange[]): string {
  return changes
    .map((change) => {
      if (change.kind === 'added') return `+ ${change.path}: ${shown(change.to)}`;
      if (change.kind === 'removed') return `- ${change.path}: ${shown(change.from)}`;
      return `~ ${change.path}: ${shown(change.from)} → ${shown(change.to)}`;
    })
    .join('\n');
}
