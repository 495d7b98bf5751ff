import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { createGuardedServer, type GuardedServerOptions } from './guarded-server';
import { LineStdioServerTransport } from './line-stdio-transport';

export interface StdioProxy {
  server: Server;
  /** Resolves when the client closes its end (stdin ends). */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves the guarded server on stdin/stdout (the proxy is the MCP client's child process). */
export async function startStdioProxy(options: GuardedServerOptions & { input?: Readable; output?: Writable }): Promise<StdioProxy> {
  const server = createGuardedServer(options);
  const transport = new LineStdioServerTransport(options.input, options.output);
  const closed = new Promise<void>((resolve) => {
    server.onclose = ((previous) => () => {
      previous?.();
      resolve();
    })(server.onclose);
  });
  server.onerror = (error) => options.log?.('protocol error', { error: error.message });
  await server.connect(transport);
  return { server, closed, close: () => server.close() };
}
