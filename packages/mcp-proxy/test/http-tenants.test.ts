import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '@guardagent/config';
import { startGateway, type Gateway } from '@guardagent/service-gateway';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { CLI, REPO_ROOT, startWorkers, textOf, type Workers } from './mcp-fixture';
import { startHostileServer, type HostileServer } from './hostile-server';
import { silentLogger } from '@guardagent/telemetry';

// `guardagent mcp --port` started for one tenant (--tenant shop --subject ...), next to the
// gateway of the same deployment: --subject serves only that tenant's keys, and the tenant's
// check-rate quota holds on MCP calls exactly as on the gateway's checks (one budget).
const ADMIN_KEY = 'mcp-tenants-admin-key-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'ga-mcp-tenants-'));
const redisUrl = testRedisUrl();
const prefix = uniquePrefix('mcptenants');
const policy = { id: 'tenants', specification: 'Ping.', toolbox: ['core', 'rails'], rails: { roles: { user: { tools: ['ping'] } } } };
let workers: Workers;
let gateway: Gateway;
let upstream: HostileServer;
let child: ChildProcess;
let proxyUrl: string;
let shopKey: string;
let otherKey: string;

const gatewayCall = (path: string, body: unknown, key = ADMIN_KEY, method = 'POST') =>
  fetch(`${gateway.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const connect = async (key: string) => {
  const client = new Client({ name: 'test-assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(proxyUrl), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
};
const initialize = (key: string) =>
  fetch(proxyUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  }).then(async (res) => ({ status: res.status, body: await res.text() }));

beforeAll(async () => {
  writeFileSync(join(dir, 'policy.json'), JSON.stringify(policy));
  workers = await startWorkers(redisUrl, prefix);
  gateway = await startGateway({ config: loadConfig({}, { redisUrl, prefix, adminKey: ADMIN_KEY }), port: 0, logger: silentLogger });
  shopKey = ((await (await gatewayCall('/v1/tenants', { id: 'shop' })).json()) as { apiKey: string }).apiKey;
  otherKey = ((await (await gatewayCall('/v1/tenants', { id: 'other' })).json()) as { apiKey: string }).apiKey;
  upstream = await startHostileServer([{ entry: { name: 'ping', description: 'Answers pong.', inputSchema: { type: 'object' } }, call: () => ({ content: [{ type: 'text', text: 'pong' }] }) }]);

  child = spawn(
    process.execPath,
    [CLI, 'mcp', '--remote', '--port', '0', '--policy', join(dir, 'policy.json'), '--tenant', 'shop', '--subject', '{"id":"shop-bot","roles":["user"]}', '--upstream', upstream.url],
    { cwd: REPO_ROOT, env: { ...process.env, REDIS_URL: redisUrl, GUARDAGENT_PREFIX: prefix, GUARDAGENT_ADMIN_KEY: ADMIN_KEY }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  proxyUrl = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`guardagent mcp exited with ${code}`)));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      if (line.includes('serving MCP streamable HTTP')) resolve((JSON.parse(line) as { url: string }).url);
    });
  });
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.removeAllListeners('exit');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await upstream?.close();
  await gateway?.close();
  await workers?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('guardagent mcp --port --tenant shop --subject ...', () => {
  it('serves the --subject to the keys of its own tenant only', async () => {
    const shop = await connect(shopKey);
    expect((await shop.listTools()).tools.map((t) => t.name)).toEqual(['ping']);
    expect(textOf(await shop.callTool({ name: 'ping', arguments: {} }))).toBe('pong');
    await shop.close();

    const other = await initialize(otherKey);
    expect(other.status).toBe(403);
    expect(JSON.parse(other.body).error.message).toBe("This MCP proxy serves no subject for tenant 'other'");
    // The server admin key acts as tenant 'default', which is not the one either.
    const admin = await initialize(ADMIN_KEY);
    expect(admin.status).toBe(403);
    expect(JSON.parse(admin.body).error.message).toBe("This MCP proxy serves no subject for tenant 'default'");
    await expect(connect(otherKey)).rejects.toThrow();
    expect(upstream.forwarded()).toBe(1);
  });

  it("holds the tenant's check rate on MCP calls: refused calls say why and are not forwarded; the gateway sees the same budget", async () => {
    const set = await gatewayCall('/v1/tenants/shop/quotas', { checksPerSecond: 2, checkBurst: 2 }, ADMIN_KEY, 'PUT');
    expect(set.status).toBe(200);
    const client = await connect(shopKey);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['ping']);
    const before = upstream.forwarded();

    const started = performance.now();
    const results = (await Promise.all(Array.from({ length: 40 }, () => client.callTool({ name: 'ping', arguments: {} })))) as CallToolResult[];
    const seconds = (performance.now() - started) / 1000;
    const forwarded = upstream.forwarded() - before;
    const answered = results.filter((r) => !r.isError);
    const refused = results.filter((r) => r.isError);

    // Every answered call was forwarded once; every refused one was not forwarded at all.
    expect(answered.length).toBe(forwarded);
    for (const r of answered) expect(textOf(r)).toBe('pong');
    for (const r of refused) {
      expect(textOf(r)).toMatch(
        /^GuardAgent denied the call to 'ping'\. Reasons: the tenant's check quota refused it \(QUOTA_EXCEEDED: over the tenant's check rate \(2\/s\): the limit is 2\); retry in \d+ s; the call was not forwarded$/,
      );
    }
    // A forwarded call costs two checks (the call, then its result): burst 2 + 2/s.
    expect(forwarded).toBeGreaterThanOrEqual(1);
    expect(forwarded).toBeLessThanOrEqual(Math.ceil((2 + 2 * seconds) / 2));
    expect(refused.length).toBe(40 - forwarded);

    // The same tenant's direct checks at the gateway draw on the budget the MCP calls used up.
    const direct = await Promise.all(
      Array.from({ length: 6 }, () => gatewayCall('/v1/checks?wait=0', { policy, input: 'ping' }, shopKey).then((r) => r.status)),
    );
    expect(direct.filter((s) => s === 429).length).toBeGreaterThanOrEqual(4);
    await client.close();
  });
});
