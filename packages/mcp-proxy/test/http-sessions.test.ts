import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PolicySchema } from '@guardagent/schemas';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { ToolNames, connectUpstream, startHttpProxy, type HttpProxy, type Upstream } from '../src/index';
import { EVERYTHING_SERVER, startWorkers, textOf, type Workers } from './mcp-fixture';

// The HTTP proxy's session bounds, in process: abandoned sessions are closed after idleMs, and
// no more than maxSessions are open at once. Clock injected; real upstream and workers.
let clock = 0;
let workers: Workers;
let upstream: Upstream;
let proxy: HttpProxy;

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
});
afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
  await workers?.close();
});

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
