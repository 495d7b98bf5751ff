import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { UnavailableError } from '@guardagent/client';

/** How to reach one real MCP server. */
export type UpstreamSpec =
  | { name: string; command: string; args?: readonly string[]; env?: Record<string, string>; cwd?: string }
  | { name: string; url: string; headers?: Record<string, string> };

/** A connected upstream server, shared by every session of the proxy. */
export interface Upstream {
  readonly name: string;
  readonly client: Client;
  /** Called when the upstream says its tool list changed. */
  onToolsChanged(listener: () => void): () => void;
  close(): Promise<void>;
}

/**
 * Connects to a real MCP server with the official SDK's client: a child process over stdio (its
 * stderr goes to ours, never to our stdout) or a streamable HTTP endpoint.
 */
export async function connectUpstream(spec: UpstreamSpec, info: { name: string; version: string }): Promise<Upstream> {
  const client = new Client(info, { capabilities: {} });
  const listeners = new Set<() => void>();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    for (const listener of listeners) listener();
  });
  const transport =
    'command' in spec
      ? new StdioClientTransport({
          command: spec.command,
          args: [...(spec.args ?? [])],
          env: { ...getDefaultEnvironment(), ...spec.env },
          ...(spec.cwd ? { cwd: spec.cwd } : {}),
          stderr: 'inherit',
        })
      : new StreamableHTTPClientTransport(new URL(spec.url), spec.headers ? { requestInit: { headers: spec.headers } } : undefined);
  try {
    await client.connect(transport);
  } catch (error) {
    const where = 'command' in spec ? `'${spec.command}'` : spec.url;
    throw new UnavailableError(`could not connect to the MCP server ${where}: ${(error as Error).message}`, { upstream: spec.name });
  }
  return {
    name: spec.name,
    client,
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => client.close(),
  };
}
