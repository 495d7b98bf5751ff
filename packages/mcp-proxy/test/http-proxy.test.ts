import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadConfig } from '@guardagent/config';
import { freePort } from '@guardagent/local-redis';
import { startGateway, type Gateway } from '@guardagent/service-gateway';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { CLI, EVERYTHING_SERVER, FILESYSTEM_SERVER, REPO_ROOT, startWorkers, textOf, type Workers } from './mcp-fixture';
import { silentLogger } from '@guardagent/telemetry';

// `guardagent mcp --port` serving MCP streamable HTTP, with bearer keys of the gateway's tenants,
// in front of two real servers: server-everything over streamable HTTP and server-filesystem
// over stdio. With two upstreams every tool is named `<upstream>__<tool>`.
const ADMIN_KEY = 'mcp-test-admin-key-0123456789';
const root = realpathSync(mkdtempSync(join(tmpdir(), 'ga-mcp-http-')));
const redisUrl = testRedisUrl();
const prefix = uniquePrefix('mcphttp');
const children: ChildProcess[] = [];
let workers: Workers;
let gateway: Gateway;
let proxyUrl: string;
let shopKey: string;
let otherKey: string;

/** Starts a process and resolves with the first stderr line `match` accepts. */
function startAndWaitFor(args: string[], env: Record<string, string>, match: (line: string) => string | null): Promise<string> {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      const found = match(line);
      if (found !== null) resolve(found);
    });
  });
}

const connect = async (key: string) => {
  const client = new Client({ name: 'test-assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(proxyUrl), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
};
const gatewayCall = (path: string, body: unknown, key = ADMIN_KEY) =>
  fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  writeFileSync(join(root, 'hello.txt'), 'hello over http\n');
  writeFileSync(
    join(root, 'policy.json'),
    JSON.stringify({
      id: 'two-servers',
      specification: 'An assistant with demo tools and project files.',
      toolbox: ['core', 'rails'],
      rails: {
        roles: { dev: { tools: ['every__echo', 'fs__read_text_file', 'fs__write_file'] } },
        tools: { fs__write_file: { requireApproval: [{ id: 'always', when: 'true', message: 'every write needs approval' }] } },
      },
    }),
  );
  writeFileSync(join(root, 'subjects.json'), JSON.stringify({ shop: { id: 'dev-1', roles: ['dev'] }, other: { id: 'guest', roles: [] } }));

  workers = await startWorkers(redisUrl, prefix);
  const config = loadConfig({}, { redisUrl, prefix, adminKey: ADMIN_KEY });
  gateway = await startGateway({ config, port: 0, logger: silentLogger });
  shopKey = ((await (await gatewayCall('/v1/tenants', { id: 'shop' })).json()) as { apiKey: string }).apiKey;
  otherKey = ((await (await gatewayCall('/v1/tenants', { id: 'other' })).json()) as { apiKey: string }).apiKey;

  const everythingPort = await freePort();
  await startAndWaitFor([EVERYTHING_SERVER, 'streamableHttp'], { PORT: String(everythingPort) }, (line) => (line.includes('listening on port') ? line : null));
  proxyUrl = await startAndWaitFor(
    [CLI, 'mcp', '--remote', '--port', '0', '--policy', join(root, 'policy.json'), '--subjects', join(root, 'subjects.json'),
      '--upstream', `every=http://127.0.0.1:${everythingPort}/mcp`, '--name', 'fs', '--', process.execPath, FILESYSTEM_SERVER, root],
    { REDIS_URL: redisUrl, GUARDAGENT_PREFIX: prefix, GUARDAGENT_ADMIN_KEY: ADMIN_KEY },
    (line) => (line.includes('serving MCP streamable HTTP') ? (JSON.parse(line) as { url: string }).url : null),
  );
});
afterAll(async () => {
  await Promise.all(
    children.map((child) => {
      child.removeAllListeners('exit');
      if (child.exitCode !== null || child.signalCode !== null) return undefined;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      return exited;
    }),
  );
  await gateway?.close();
  await workers?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('guardagent mcp over streamable HTTP with two upstreams', () => {
  it('lists the allowed tools of both servers, each named <upstream>__<tool>', async () => {
    const client = await connect(shopKey);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['every__echo', 'fs__read_text_file', 'fs__write_file']);
    const guest = await connect(otherKey);
    expect((await guest.listTools()).tools).toEqual([]);
    await Promise.all([client.close(), guest.close()]);
  });

  it('forwards allowed calls to the right server and refuses a hidden one', async () => {
    const client = await connect(shopKey);
    expect(textOf(await client.callTool({ name: 'every__echo', arguments: { message: 'over http' } }))).toBe('Echo: over http');
    expect(textOf(await client.callTool({ name: 'fs__read_text_file', arguments: { path: join(root, 'hello.txt') } }))).toContain('hello over http');
    const hidden = await client.callTool({ name: 'every__get-env', arguments: {} });
    expect(hidden.isError).toBe(true);
    expect(textOf(hidden)).toContain("tool 'every__get-env' is not allowed");
    const unknown = await client.callTool({ name: 'nosuch__echo', arguments: { message: 'x' } });
    expect(unknown.isError).toBe(true);
    await client.close();
  });

  it('holds a write, which runs once after approval through the gateway API; a second retry is refused', async () => {
    const client = await connect(shopKey);
    const file = join(root, 'approved.txt');
    const call = () => client.callTool({ name: 'fs__write_file', arguments: { path: file, content: 'approved' } });
    const held = await call();
    expect(held.isError).toBe(true);
    const token = (held._meta!['guardagent/decision'] as { approval: { token: string } }).approval.token;
    expect(existsSync(file)).toBe(false);
    const approved = await gatewayCall('/v1/approvals', { token, approver: 'ops-lead', tenant: 'shop' });
    expect(await approved.json()).toEqual({ result: 'approved' });
    expect((await call()).isError).toBeFalsy();
    expect(readFileSync(file, 'utf8')).toBe('approved');
    rmSync(file);
    const again = await call();
    expect(again.isError).toBe(true);
    expect(textOf(again)).toContain('every write needs approval');
    expect(existsSync(file)).toBe(false);
    await client.close();
  });

  it('refuses unknown keys, and another tenant\'s key on a session it did not open', async () => {
    await expect(connect('ga_not-a-real-key')).rejects.toThrow();
    const client = await connect(shopKey);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const hijack = await fetch(proxyUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${otherKey}`, 'mcp-session-id': sessionId, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(hijack.status).toBe(404);
    await client.close();
  });

  it('answers a malformed message with a JSON-RPC parse error and keeps serving', async () => {
    const client = await connect(shopKey);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const bad = await fetch(proxyUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${shopKey}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc": "2.0", "id": 1, "method": ',
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);
    expect(textOf(await client.callTool({ name: 'every__echo', arguments: { message: 'still serving' } }))).toBe('Echo: still serving');
    await client.close();
  });
});
