import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type LocalRedis } from '@guardagent/local-redis';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { FILESYSTEM_SERVER, connectStdioProxy, startWorkers, textOf, type ProxyClient } from './mcp-fixture';

// No decision can be had: no worker serves the queues, or Redis is gone. The proxy refuses the
// call with the reason, whatever the policy's failMode: that covers only the GuardAgent layer
// failing inside a decision, never the infrastructure failing to make one.
const root = realpathSync(mkdtempSync(join(tmpdir(), 'ga-mcp-fail-')));
const subject = '{"id":"u-1","roles":["writer"]}';
const policyFile = (failMode: 'open' | 'closed') => {
  const file = join(root, `policy-${failMode}.json`);
  writeFileSync(file, JSON.stringify({ id: `fs-${failMode}`, specification: 'Writes notes.', toolbox: ['core', 'rails'], failMode, rails: { roles: { writer: { tools: ['write_file'] } } } }));
  return file;
};
const write = (proxy: ProxyClient, name: string) => proxy.client.callTool({ name: 'write_file', arguments: { path: join(root, name), content: name } });

let redis: LocalRedis;
const proxies: ProxyClient[] = [];
const proxyOn = async (redisUrl: string, failMode: 'open' | 'closed', prefix = uniquePrefix('mcpfail')) => {
  const proxy = await connectStdioProxy({
    redisUrl,
    prefix,
    timeoutMs: 1500,
    cliArgs: ['--policy', policyFile(failMode), '--subject', subject, '--', process.execPath, FILESYSTEM_SERVER, root],
  });
  proxies.push(proxy);
  return proxy;
};

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await redis?.stop().catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
});

describe('guardagent mcp when GuardAgent cannot decide', () => {
  it('refuses the call when no worker answers in time, and does not forward it', async () => {
    const proxy = await proxyOn(testRedisUrl(), 'closed');
    const refused = await write(proxy, 'no-worker.txt');
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/GuardAgent could not decide \(CHECK_TIMEOUT: .+\); the call was not forwarded/);
    expect(existsSync(join(root, 'no-worker.txt'))).toBe(false);
  });

  it('refuses it too when the policy says failMode: open (no decision is not the guard failing open)', async () => {
    const proxy = await proxyOn(testRedisUrl(), 'open');
    const refused = await write(proxy, 'open.txt');
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/GuardAgent could not decide \(CHECK_TIMEOUT: .+\); the call was not forwarded/);
    expect(existsSync(join(root, 'open.txt'))).toBe(false);
    // A call that is not a valid guard job is malformed, not undecided: refused even here.
    const malformed = await proxy.client.callTool({ name: 'w'.repeat(300), arguments: {} });
    expect(malformed.isError).toBe(true);
    expect(textOf(malformed)).toContain('is not a valid guard job');
  });

  it('lists nothing it could not inspect: with no worker, the catalogue entry is not shown', async () => {
    const proxy = await proxyOn(testRedisUrl(), 'closed');
    expect((await proxy.client.listTools()).tools).toEqual([]);
  });

  it('refuses the call when Redis is stopped, and keeps serving the catalogue it inspected before', async () => {
    const prefix = uniquePrefix('mcpfail');
    const workers = await startWorkers(redis.url, prefix);
    const proxy = await proxyOn(redis.url, 'closed', prefix);
    expect((await proxy.client.listTools()).tools.map((t) => t.name)).toEqual(['write_file']);
    await workers.close();
    await redis.stop();
    const refused = await write(proxy, 'redis-down.txt');
    expect(refused.isError).toBe(true);
    // The policy lookup the listing just made is still cached, so the submit gets as far as the
    // micro-batcher, whose retries outlast --timeout: either way no decision, and no call.
    expect(textOf(refused)).toMatch(/GuardAgent could not decide \((UNAVAILABLE|CHECK_TIMEOUT): .+\); the call was not forwarded/);
    expect(existsSync(join(root, 'redis-down.txt'))).toBe(false);
    // The entry it inspected before is remembered (by content): listing needs no guard job.
    expect((await proxy.client.listTools()).tools.map((t) => t.name)).toEqual(['write_file']);
  });
});
