import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, Redis } from 'ioredis';
import { startRedisCluster, RedisServerMissingError, type LocalRedisCluster } from '../src/index';
import { ping } from './ping';


/** One plain (non-cluster) connection per node, to ask each node about itself. */
async function withNode<T>(port: number, use: (node: Redis) => Promise<T>): Promise<T> {
  const node = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0 });
  try {
    return await use(node);
  } finally {
    node.disconnect();
  }
}

// CLUSTER SLOTS entry: a slot range, then its primary and any replicas as [host, port, ...].
type SlotRange = [start: number, end: number, ...nodes: Array<[host: string, port: number, ...rest: unknown[]]>];

describe('startRedisCluster', { timeout: 60_000 }, () => {
  let cluster: LocalRedisCluster;
  let client: Cluster;
  let slots: SlotRange[];

  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = new Cluster(cluster.urls, { redisOptions: { maxRetriesPerRequest: 0 } });
    slots = await withNode(cluster.nodes[0].port, (node) => node.cluster('SLOTS'));
  }, 60_000);

  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  const ownerOf = (slot: number) => slots.find(([start, end]) => slot >= start && slot <= end)![2][1];

  it('starts 3 primaries that all report a healthy cluster and each serve slots', async () => {
    expect(cluster.nodes).toHaveLength(3);
    expect(cluster.urls).toEqual(cluster.nodes.map(({ host, port }) => `redis://${host}:${port}`));
    for (const { port } of cluster.nodes) {
      const info = await withNode(port, (node) => node.cluster('INFO'));
      expect(info).toMatch(/^cluster_state:ok\r$/m);
      expect(info).toMatch(/^cluster_known_nodes:3\r$/m);
      expect(info).toMatch(/^cluster_slots_assigned:16384\r$/m);
    }
    const served = new Map<number, number>();
    for (const [start, end, [, port]] of slots) served.set(port, (served.get(port) ?? 0) + end - start + 1);
    expect([...served.keys()].sort()).toEqual(cluster.nodes.map(({ port }) => port).sort());
    expect([...served.values()].reduce((a, b) => a + b)).toBe(16_384);
  });

  it('routes keys to every primary through an ioredis Cluster', async () => {
    // Pick single-letter keys until every primary owns one, by the nodes' own CLUSTER KEYSLOT.
    const keyByPort = new Map<number, string>();
    for (const key of 'abcdefghijklmnopqrstuvwxyz') {
      const slot = await withNode(cluster.nodes[0].port, (node) => node.cluster('KEYSLOT', key));
      if (!keyByPort.has(ownerOf(slot))) keyByPort.set(ownerOf(slot), key);
      if (keyByPort.size === cluster.nodes.length) break;
    }
    expect(keyByPort.size).toBe(3);

    for (const key of keyByPort.values()) await client.set(key, `value-${key}`);
    // Read back from the nodes themselves, not through the client that wrote: the node that owns a
    // key's slot holds it, and every other node answers MOVED (the slot map the cluster was built with).
    for (const [port, key] of keyByPort) {
      expect(await withNode(port, (node) => node.get(key))).toBe(`value-${key}`);
      for (const other of cluster.nodes.filter((n) => n.port !== port)) {
        await expect(withNode(other.port, (node) => node.get(key))).rejects.toThrow(new RegExp(`^MOVED \\d+ 127\\.0\\.0\\.1:${port}$`));
      }
    }
  });

  it('runs a Lua script on keys that share a hash tag', async () => {
    const result = await client.eval(
      "redis.call('SET', KEYS[1], ARGV[1]); redis.call('SET', KEYS[2], ARGV[2]); return redis.call('MGET', KEYS[1], KEYS[2])",
      2,
      '{t}:one',
      '{t}:two',
      '1',
      '2',
    );
    expect(result).toEqual(['1', '2']);
  });
});

describe('startRedisCluster stop', { timeout: 60_000 }, () => {
  it('stops every node, and a second stop() is a no-op', async () => {
    const cluster = await startRedisCluster();
    for (const { port } of cluster.nodes) expect(await ping(port)).toBe('+PONG');
    await cluster.stop();
    await cluster.stop();
    for (const { port } of cluster.nodes) await expect(ping(port)).rejects.toThrow();
  });
});

describe('startRedisCluster without binaries', () => {
  it('says how to install redis-server when it is missing', async () => {
    const error = await startRedisCluster({ binary: 'redis-server-that-does-not-exist' }).catch((e) => e);
    expect(error).toBeInstanceOf(RedisServerMissingError);
  });

  it('says redis-cli is missing and how to install it', async () => {
    const error = await startRedisCluster({ cliBinary: 'redis-cli-that-does-not-exist' }).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(/redis-cli-that-does-not-exist is not on PATH.*apt-get install -y redis-tools/s);
  });
});
