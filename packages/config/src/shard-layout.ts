/// <reference path="./types/cluster-key-slot.d.ts" />
import { createHash } from 'node:crypto';
import calculateSlot from 'cluster-key-slot';

/** Redis Cluster's hash slots. */
const SLOTS = 16_384;
export const MAX_SHARDS = 64;

/**
 * How a deployment's keys and queues are split into shards. Each tenant lives in one shard: its
 * data (policies, programs, decisions, quotas, rails state) and the stage queues its jobs travel
 * on all sit under the shard's key prefix, so every Lua script and MULTI a job runs touches one
 * shard. On a Redis Cluster each shard's prefix is a hash tag of its own, and the tags are chosen
 * so that shard i of n hashes into the i-th n-th of the slot range: a cluster whose primaries own
 * equal slot ranges (as `redis-cli --cluster create` assigns them) gets the shards spread evenly.
 *
 * With one shard the shard prefix is the deployment's prefix itself, so a one-shard deployment's
 * keys are exactly those of a deployment without sharding. What is not a tenant's (the tenant
 * registry, API keys, this layout's record) stays under the deployment's prefix.
 */
export class ShardLayout {
  /** Each shard's key prefix, in shard order. */
  readonly prefixes: readonly string[];

  constructor(
    /** The deployment's prefix as keys use it (`{guardagent}` on a cluster, see keyPrefixFor). */
    readonly prefix: string,
    readonly count: number,
  ) {
    if (!Number.isInteger(count) || count < 1 || count > MAX_SHARDS) throw new RangeError(`shard count must be an integer from 1 to ${MAX_SHARDS}, got ${count}`);
    this.prefixes = count === 1 ? [prefix] : Array.from({ length: count }, (_, i) => shardPrefix(prefix, i, count));
  }

  /** The shard a tenant lives in: a hash of its id, so every process agrees without asking Redis. */
  shardOf(tenant: string): number {
    if (this.count === 1) return 0;
    return createHash('sha256').update(tenant).digest().readUInt32BE(0) % this.count;
  }

  /** The key prefix of a tenant's shard. */
  prefixOf(tenant: string): string {
    return this.prefixes[this.shardOf(tenant)];
  }
}

/**
 * Shard i of n's prefix: `<name>.s<i>` (or `<name>.s<i>.<k>` for the first k that lands in the
 * shard's slot range), wrapped in braces when the deployment's prefix is a hash tag.
 */
function shardPrefix(prefix: string, index: number, count: number): string {
  const tagged = /^\{[^{}]+\}$/.test(prefix);
  const name = tagged ? prefix.slice(1, -1) : prefix;
  const low = Math.floor((index * SLOTS) / count);
  const high = Math.floor(((index + 1) * SLOTS) / count);
  for (let k = 0; ; k++) {
    const candidate = k === 0 ? `${name}.s${index}` : `${name}.s${index}.${k}`;
    if (!tagged) return candidate;
    const slot = calculateSlot(candidate);
    if (slot >= low && slot < high) return `{${candidate}}`;
  }
}
