import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { QueueTransport } from '@guardagent/client/queue';
import { loadConfig } from '@guardagent/config';
import { createRuntime, type Runtime } from '@guardagent/pipeline';
import { silentLogger } from '@guardagent/telemetry';

const require = createRequire(import.meta.url);
export const REPO_ROOT = join(import.meta.dirname, '..', '..', '..');
export const CLI = join(REPO_ROOT, 'packages', 'cli', 'bin', 'guardagent.mjs');
/** The real MCP servers from npm, started with node (no npx, no network). */
export const FILESYSTEM_SERVER = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
export const EVERYTHING_SERVER = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

export interface Workers {
  runtime: Runtime;
  transport: QueueTransport;
  close(): Promise<void>;
}

/** Real executor workers (rails, sandbox) and a client on the given Redis and prefix. */
export async function startWorkers(redisUrl: string, prefix: string): Promise<Workers> {
  const config = loadConfig({}, { redisUrl, prefix });
  const runtime = await createRuntime(config, { llm: null, logger: silentLogger });
  runtime.startWorkers(['executor']);
  const transport = await QueueTransport.connect({ redisUrl, prefix });
  return {
    runtime,
    transport,
    async close() {
      await transport.close();
      await runtime.close();
    },
  };
}

export interface ProxyClient {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

/** `guardagent mcp` as an assistant launches it, driven by the official SDK's Client over stdio. */
export async function connectStdioProxy(options: { redisUrl: string; prefix: string; cliArgs: string[]; timeoutMs?: number }): Promise<ProxyClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--remote', '--timeout', String(options.timeoutMs ?? 15000), ...options.cliArgs],
    env: { ...(process.env as Record<string, string>), REDIS_URL: options.redisUrl, GUARDAGENT_PREFIX: options.prefix },
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'test-assistant', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** The text of a tool result's text blocks. */
export const textOf = (result: unknown): string =>
  ((result as CallToolResult).content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('\n');
