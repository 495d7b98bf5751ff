import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PolicySchema } from '@guardagent/schemas';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { ToolNames, connectUpstream, startHttpProxy, type HttpProxy, type Upstream } from '../src/index';
import { EVERYTHING_SERVER, startWorkers, textOf, type Workers } from './mcp-fixture';

// The HTTP proxy's session bounds, in process: abandoned sessions are closed after idleMs, and
// no more than maxSessions are open at once, nor maxSessionsPerTenant of one tenant.
// Clock injected; real upstream and workers.
let clock = 0;
let workers: Workers;
let upstream: Upstream;
let proxy: HttpProxy;
let shared: HttpProxy;

const policy = PolicySchema.parse({ id: 'sessions', specification: 'Echo.', toolbox: ['core', 'rails'], rails: { roles: { user: { tools: ['echo'] } } } });
const connect = async () => {
  const client = new Client({ name: 'test-assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url), { requestInit: { headers: { authorization: 'Bearer key-of-tenant-a' } } }));
  return client;
};

beforeAll(async () => {
  const prefix = uniquePrefix('mcpsess');
  workers = await startWorkers(testRedisUrl(), prefix);
  upstream = await connectUpstream({ name: '', command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] }, { name: 'test-proxy', version: '1' });
  proxy = await startHttpProxy({
    upstreams: [upstream],
    names: new ToolNames(['']),
    policy,
    authenticate: async (key) => (key === 'key-of-tenant-a' ? { tenant: 'default', subject: { id: 'u-1', roles: ['user'] } } : null),
    transportFor: async () => workers.transport,
    maxSessions: 2,
    idleMs: 60_000,
    now: () => clock,
  });
  shared = await startHttpProxy({
    upstreams: [upstream],
    names: new ToolNames(['']),
    policy,
    authenticate: async (key) => (TENANT_KEYS[key] ? { tenant: TENANT_KEYS[key], subject: { id: `u-${key}`, roles: ['user'] } } : null),
    transportFor: async () => workers.transport,
    maxSessions: 10,
    maxSessionsPerTenant: 3,
    idleMs: 60_000,
    now: () => clock,
  });
});
afterAll(async () => {
  await shared?.close();
  await proxy?.close();
  await upstream?.close();
  await workers?.close();
});

const TENANT_KEYS: Record<string, string> = { 'key-a': 'tenant-a', 'key-b': 'tenant-b' };
/** An initialize request as any MCP client sends it, without the SDK (so nothing retries). */
const initialize = (key: string) =>
  fetch(shared.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  }).then(async (res) => ({ status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() }));

describe('HTTP proxy sessions', () => {
  it('caps open sessions and closes idle ones, after which their id is unknown', async () => {
    const first = await connect();
    const second = await connect();
    expect(proxy.sessions()).toBe(2);
    await expect(connect()).rejects.toThrow(/503|Too many open sessions/);

    clock += 30_000;
    expect(textOf(await second.callTool({ name: 'echo', arguments: { message: 'busy' } }))).toBe('Echo: busy');
    clock += 45_000;
    expect(await proxy.sweepIdle()).toBe(1);
    expect(proxy.sessions()).toBe(1);
    await expect(first.listTools()).rejects.toThrow();
    expect((await second.listTools()).tools.map((t) => t.name)).toEqual(['echo']);

    const third = await connect();
    expect(proxy.sessions()).toBe(2);
    await Promise.all([second.close(), third.close(), first.close().catch(() => undefined)]);
  });
});

describe('HTTP proxy sessions per tenant', () => {
  it("one tenant's burst of sessions cannot exhaust the others'; its idle ones expire and make room", async () => {
    // Twenty at once: sessions being opened count, so no race lets more than three through.
    const burst = await Promise.all(Array.from({ length: 20 }, () => initialize('key-a')));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(3);
    const refused = burst.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(17);
    for (const r of refused) {
      expect(r.status).toBe(429);
      expect(JSON.parse(r.body).error.message).toBe('Too many open sessions for this tenant (at most 3); close one or retry later');
      expect(r.retryAfter).toBe('60');
    }
    expect(shared.sessions('tenant-a')).toBe(3);

    // Another tenant is not affected.
    const b = await Promise.all([initialize('key-b'), initialize('key-b')]);
    expect(b.map((r) => r.status)).toEqual([200, 200]);
    expect(shared.sessions('tenant-b')).toBe(2);

    // A request that opens no session (not an initialize) holds nothing.
    const notInit = await fetch(shared.url, {
      method: 'POST',
      headers: { authorization: 'Bearer key-b', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(notInit.status).toBe(400);
    await notInit.text();
    expect((await initialize('key-b')).status).toBe(200);
    expect((await initialize('key-b')).status).toBe(429);

    // Past idleMs, tenant A's abandoned sessions are swept as soon as it asks again (no sweeper wait).
    clock += 61_000;
    expect((await initialize('key-a')).status).toBe(200);
    expect(shared.sessions('tenant-a')).toBe(1);
    expect(shared.sessions('tenant-b')).toBe(0);
  });
});
