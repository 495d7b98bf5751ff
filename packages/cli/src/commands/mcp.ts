import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ConfigError, ValidationError } from '@guardagent/errors';
import {
  ApprovalMemory,
  CallGuard,
  ToolNames,
  connectUpstream,
  startStdioProxy,
  toolVisibility,
  type Upstream,
  type UpstreamSpec,
} from '@guardagent/mcp-proxy';
import { SubjectSchema, parseOrThrow, parsePolicyText, type Subject } from '@guardagent/schemas';
import { readDataFile } from '../read-input-file';
import { startLocalStack } from '../local-stack';

interface McpOptions {
  policy: string;
  subject?: string;
  upstream: string[];
  name?: string;
  tenant: string;
  timeout: string;
  remote?: boolean;
}

/** stderr only: on stdio, stdout carries nothing but the protocol. */
const log = (message: string, fields: Record<string, unknown> = {}) =>
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), msg: `mcp: ${message}`, ...fields })}\n`);

/** `--subject` is a file (YAML/JSON) or inline JSON. */
export function readSubject(value: string): Subject {
  const data = value.trimStart().startsWith('{') ? (JSON.parse(value) as unknown) : readDataFile(value);
  return parseOrThrow(SubjectSchema, data, '--subject');
}

/** `--upstream URL` or `--upstream NAME=URL`, repeatable. */
function upstreamSpecs(options: McpOptions, command: readonly string[]): UpstreamSpec[] {
  const specs: UpstreamSpec[] = options.upstream.map((value) => {
    const at = value.indexOf('=');
    const named = at > 0 && !value.slice(0, at).includes(':');
    return { name: named ? value.slice(0, at) : '', url: named ? value.slice(at + 1) : value };
  });
  if (command.length > 0) specs.push({ name: options.name ?? '', command: command[0], args: command.slice(1) });
  if (specs.length === 0) throw new ConfigError('give the MCP server to guard: `-- <command> [args...]` or --upstream URL');
  if (specs.length > 1 && specs.some((s) => s.name === '')) {
    throw new ConfigError('with several upstream servers, name each one: --upstream NAME=URL and --name NAME for the command');
  }
  return specs;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description('guard an MCP server: every tools/call becomes a guard job; forbidden tools are hidden from tools/list')
    .argument('[command...]', 'after --: the command that starts the real MCP server (stdio)')
    .requiredOption('--policy <file>', 'policy file (YAML/JSON)')
    .option('--subject <file|json>', 'who the agent acts for: { id, roles, attributes }')
    .option('--upstream <[name=]url>', 'a streamable HTTP MCP server to guard (repeatable)', collect, [])
    .option('--name <name>', 'name of the server started by the command, when there are several upstreams')
    .option('--tenant <id>', 'tenant the guard jobs belong to', 'default')
    .option('--timeout <ms>', 'how long to wait for a decision before refusing (fail closed)', '10000')
    .option('--remote', 'use workers already running on REDIS_URL instead of starting them here')
    .action(async (command: string[], options: McpOptions) => {
      const policy = parsePolicyText(readFileSync(options.policy, 'utf8'), options.policy);
      if (!options.subject) throw new ValidationError('mcp', [{ path: 'subject', message: 'give --subject FILE|JSON' }]);
      const subject = readSubject(options.subject);
      const specs = upstreamSpecs(options, command);
      const names = new ToolNames(specs.map((s) => s.name));

      const stack = await startLocalStack({ stages: options.remote ? [] : undefined, tenant: options.tenant });
      const upstreams: Upstream[] = [];
      try {
        for (const spec of specs) upstreams.push(await connectUpstream(spec, { name: 'guardagent-mcp-proxy', version: '0.1.0' }));
        const guard = new CallGuard({
          transport: stack.client,
          policy,
          failMode: policy.failMode,
          subject,
          approvals: new ApprovalMemory(),
          timeoutMs: Number(options.timeout),
        });
        const proxy = await startStdioProxy({ upstreams, names, guard, visibility: toolVisibility(policy, subject.roles), log });
        log('serving on stdio', { policy: policy.id, upstreams: specs.map((s) => s.name || ('command' in s ? s.command : s.url)) });
        const stop = new Promise<void>((resolve) => {
          for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
        });
        await Promise.race([proxy.closed, stop]);
        await proxy.close();
      } finally {
        await Promise.all(upstreams.map((u) => u.close().catch(() => undefined)));
        await stack.stop();
      }
    });
}
