/// <reference path="../src/types/cluster-key-slot.d.ts" />
import { describe, expect, it } from 'vitest';
import calculateSlot from 'cluster-key-slot';
import { MAX_SHARDS, ShardLayout, loadConfig } from '../src/index';

const tenants = Array.from({ length: 600 }, (_, i) => `tenant-${i}`);

describe('ShardLayout', () => {
  it('is the deployment prefix itself with one shard, so a one-shard deployment keeps its keys', () => {
    for (const prefix of ['guardagent', '{guardagent}']) {
      const layout = new ShardLayout(prefix, 1);
      expect(layout.prefixes).toEqual([prefix]);
      expect(tenants.every((t) => layout.prefixOf(t) === prefix)).toBe(true);
    }
  });

  it("puts shard i of n in the i-th n-th of a cluster's slots, each shard a hash tag of its own", () => {
    for (const count of [2, 3, 6, 16, MAX_SHARDS]) {
      const layout = new ShardLayout('{guardagent}', count);
      expect(new Set(layout.prefixes).size).toBe(count);
      layout.prefixes.forEach((prefix, i) => {
        expect(prefix).toMatch(/^\{guardagent\.s\d+(\.\d+)?\}$/);
        // A key under the prefix hashes by the tag alone.
        const slot = calculateSlot(`${prefix}:acme:decision:x`);
        expect(slot).toBe(calculateSlot(prefix.slice(1, -1)));
        expect(slot).toBeGreaterThanOrEqual(Math.floor((i * 16_384) / count));
        expect(slot).toBeLessThan(Math.floor(((i + 1) * 16_384) / count));
      });
    }
  });

  it('names shards plainly on one Redis (no tags to place)', () => {
    expect(new ShardLayout('gw-1', 3).prefixes).toEqual(['gw-1.s0', 'gw-1.s1', 'gw-1.s2']);
  });

  it('gives every process the same shard for a tenant, and spreads tenants over the shards', () => {
    const a = new ShardLayout('{guardagent}', 3);
    const b = new ShardLayout('guardagent', 3);
    const counts = [0, 0, 0];
    for (const tenant of tenants) {
      expect(a.shardOf(tenant)).toBe(b.shardOf(tenant));
      counts[a.shardOf(tenant)] += 1;
    }
    // 600 tenants over 3 shards: each far from empty (a fair split is 200).
    for (const count of counts) expect(count).toBeGreaterThan(150);
    expect(a.prefixOf('tenant-7')).toBe(a.prefixes[a.shardOf('tenant-7')]);
  });

  it('refuses a count outside 1..MAX_SHARDS', () => {
    for (const count of [0, -1, 1.5, MAX_SHARDS + 1, Number.NaN]) expect(() => new ShardLayout('g', count)).toThrow(RangeError);
  });
});

describe('GUARDAGENT_SHARDS', () => {
  it('defaults to one shard and reads the variable', () => {
    expect(loadConfig({}).shards).toBe(1);
    expect(loadConfig({ GUARDAGENT_SHARDS: '8' }).shards).toBe(8);
  });

  it('names the variable when the value is bad', () => {
    for (const value of ['0', '65', 'three', '2.5']) {
      expect(() => loadConfig({ GUARDAGENT_SHARDS: value })).toThrow(/GUARDAGENT_SHARDS/);
    }
  });
});

describe('GUARDAGENT_WORKER_SHARDS', () => {
  it('reads a list of shards (sorted, once each); absent means all', () => {
    expect(loadConfig({ GUARDAGENT_SHARDS: '4' }).workerShards).toBeUndefined();
    expect(loadConfig({ GUARDAGENT_SHARDS: '4', GUARDAGENT_WORKER_SHARDS: ' 3, 0,3 ' }).workerShards).toEqual([0, 3]);
  });

  it('refuses what is not a list of existing shards, naming the variable', () => {
    for (const value of ['a', '0;1', '1,', '-1', '0,,1', '1.5']) {
      expect(() => loadConfig({ GUARDAGENT_SHARDS: '4', GUARDAGENT_WORKER_SHARDS: value })).toThrow(/GUARDAGENT_WORKER_SHARDS/);
    }
    expect(() => loadConfig({ GUARDAGENT_SHARDS: '2', GUARDAGENT_WORKER_SHARDS: '0,2' })).toThrow(/GUARDAGENT_WORKER_SHARDS: shard 2 does not exist \(GUARDAGENT_SHARDS is 2/);
    expect(() => loadConfig({ GUARDAGENT_WORKER_SHARDS: '1' })).toThrow(/shard 1 does not exist/);
  });
});
