import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { PolicySchema } from '@guardagent/schemas';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { ToolNames, connectUpstream, startHttpProxy, type HttpProxy, type Upstream } from '../src/index';
import { EVERYTHING_SERVER, startWorkers, textOf, type Workers } from './mcp-fixture';

// A client that supports MCP elicitation is asked, on a held call, whether to wait for the
// approval right there; once an approver approves, the same tools/call goes through once.
let workers: Workers;
let upstream: Upstream;
let proxy: HttpProxy;

const policy = PolicySchema.parse({
  id: 'elicit',
  specification: 'Echo.',
  toolbox: ['core', 'rails'],
  rails: {
    roles: { user: { tools: ['echo'] } },
    tools: { echo: { requireApproval: [{ id: 'loud', when: 'args.message.startsWith("LOUD")', message: 'loud echoes need approval' }] } },
  },
});

/** A client whose human answers elicitations with `answer` (after the test's approver acted). */
async function clientAnswering(answer: (message: string) => Promise<ElicitResult>) {
  const client = new Client({ name: 'elicit-assistant', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => answer(request.params.message));
  await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url), { requestInit: { headers: { authorization: 'Bearer k' } } }));
  return client;
}
const approvalIdIn = (text: string) => /approval id ([0-9a-f]{64})/.exec(text)?.[1] ?? '';

beforeAll(async () => {
  workers = await startWorkers(testRedisUrl(), uniquePrefix('mcpelicit'));
  upstream = await connectUpstream({ name: '', command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] }, { name: 'test-proxy', version: '1' });
  proxy = await startHttpProxy({
    upstreams: [upstream],
    names: new ToolNames(['']),
    policy,
    authenticate: async (key) => (key === 'k' ? { tenant: 'default', subject: { id: 'u-1', roles: ['user'] } } : null),
    transportFor: async () => workers.transport,
  });
});
afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
  await workers?.close();
});

describe('elicitation on a held call', () => {
  it('asks the human to wait; once approved, the same call runs', async () => {
    const asked: string[] = [];
    const client = await clientAnswering(async (message) => {
      asked.push(message);
      expect(await workers.transport.approve(approvalIdIn(message), 'ops-lead')).toBe('approved');
      return { action: 'accept', content: { wait: true } };
    });
    const result = await client.callTool({ name: 'echo', arguments: { message: 'LOUD hello' } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('Echo: LOUD hello');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('loud echoes need approval');
    await client.close();
  });

  it('answers the held result when the human declines to wait', async () => {
    const client = await clientAnswering(async () => ({ action: 'decline' }));
    const result = await client.callTool({ name: 'echo', arguments: { message: 'LOUD again' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("held the call to 'echo' for approval");
    await client.close();
  });
});
