/** Where GuardAgent's Redis is: one server, or a Redis Cluster reached through seed nodes. */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | { kind: 'cluster'; nodes: Array<{ host: string; port: number }>; username?: string; password?: string };

const CLUSTER_SCHEME = 'redis-cluster://';
const NODE = /^([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})$/;

/**
 * Read a Redis target: `redis://…` / `rediss://…` for one server, or
 * `redis-cluster://[user:password@]host:port,host:port,…` for a cluster (the seed nodes ioredis
 * starts from; it learns the rest from the cluster). Throws a TypeError saying what is wrong.
 */
export function parseRedisTarget(target: string): RedisTarget {
  if (!target.startsWith(CLUSTER_SCHEME)) {
    const url = new URL(target);
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new TypeError(`expected redis://, rediss:// or redis-cluster://, got ${url.protocol}//`);
    return { kind: 'single', url: target };
  }
  let end = target.length;
  while (end > CLUSTER_SCHEME.length && target[end - 1] === '/') end--; // trailing slashes, in linear time
  const rest = target.slice(CLUSTER_SCHEME.length, end);
  const at = rest.lastIndexOf('@');
  const credentials = at >= 0 ? rest.slice(0, at) : '';
  const nodes = (at >= 0 ? rest.slice(at + 1) : rest).split(',').map((node) => {
    const match = NODE.exec(node.trim());
    const port = match ? Number(match[2]) : 0;
    if (!match || port < 1 || port > 65_535) throw new TypeError(`redis-cluster:// seed '${node.trim()}' is not host:port`);
    return { host: match[1].replace(/^\[|\]$/g, ''), port };
  });
  const colon = credentials.indexOf(':');
  const username = colon >= 0 ? decodeURIComponent(credentials.slice(0, colon)) : '';
  const password = decodeURIComponent(colon >= 0 ? credentials.slice(colon + 1) : credentials);
  return { kind: 'cluster', nodes, ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

/** Whether `target` reads as a Redis target (for config validation). */
export function isRedisTarget(target: string): boolean {
  try {
    parseRedisTarget(target);
    return true;
  } catch {
    return false;
  }
}

/**
 * The key prefix to use against `target`. On a cluster it is wrapped in a hash tag (`{guardagent}`),
 * so that every key GuardAgent and BullMQ write hashes to one slot: every Lua script and multi-key
 * command then touches one slot, as a cluster requires. One slot lives on one primary, so this
 * runs correctly on a cluster; it does not spread the load over the cluster's primaries.
 */
export function keyPrefixFor(prefix: string, target: string | undefined): string {
  if (!target?.startsWith(CLUSTER_SCHEME) || /^\{[^{}]+\}$/.test(prefix)) return prefix;
  return `{${prefix}}`;
}
