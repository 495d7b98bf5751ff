import type { Command } from 'commander';
import { QueueTransport } from '@guardagent/client/queue';
import { ApiKeyStore, callerOfKey, scopeGrants } from '@guardagent/api-keys';
import { CheckAdmission } from '@guardagent/quotas';
import { createRedisConnection, waitUntilReady } from '@guardagent/queue';
import { ConfigError, ValidationError } from '@guardagent/errors';
import {
  CallGuard,
  ToolNames,
  connectUpstream,
  startHttpProxy,
  startStdioProxy,
  toolVisibility,
  type JobAdmission,
  type Upstream,
  type UpstreamSpec,
} from '@guardagent/mcp-proxy';
import { SubjectSchema, parseOrThrow, type Policy, type Subject } from '@guardagent/schemas';
import { readPolicyFile } from '../policy-file';
import { readDataFile } from '../read-input-file';
import { startLocalStack, type LocalStack } from '../local-stack';

interface McpOptions {
  policy: string;
  subject?: string;
  subjects?: string;
  port?: string;
  host: string;
  upstream: string[];
  name?: string;
  tenant: string;
  timeout: string;
  remote?: boolean;
  maxSessions: string;
  maxTenantSessions: string;
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
    .option('--subject <file|json>', "who the agent acts for: { id, roles, attributes } (HTTP: for the --tenant's keys, when --subjects does not name it)")
    .option('--subjects <file>', 'HTTP: subject per tenant, { "<tenant id>": { id, roles, attributes } }')
    .option('--port <n>', 'serve MCP streamable HTTP on this port (bearer keys as the gateway takes them) instead of stdio')
    .option('--host <host>', 'HTTP: address to listen on', '127.0.0.1')
    .option('--upstream <[name=]url>', 'a streamable HTTP MCP server to guard (repeatable)', collect, [])
    .option('--name <name>', 'name of the server started by the command, when there are several upstreams')
    .option('--tenant <id>', 'tenant the guard jobs belong to (HTTP: the one tenant --subject serves)', 'default')
    .option('--max-sessions <n>', 'HTTP: open sessions at most, in all', '1000')
    .option('--max-tenant-sessions <n>', 'HTTP: open sessions at most per tenant', '100')
    .option('--timeout <ms>', 'how long to wait for a decision before refusing (fail closed)', '10000')
    .option('--remote', 'use workers already running on REDIS_URL instead of starting them here')
    .action(async (command: string[], options: McpOptions) => {
      const { policy } = readPolicyFile(options.policy);
      if (options.port === undefined && !options.subject) throw new ValidationError('mcp', [{ path: 'subject', message: 'give --subject FILE|JSON' }]);
      const specs = upstreamSpecs(options, command);
      const names = new ToolNames(specs.map((s) => s.name));
      const stack = await startLocalStack({ stages: options.remote ? [] : undefined, tenant: options.tenant });
      const upstreams: Upstream[] = [];
      try {
        for (const spec of specs) upstreams.push(await connectUpstream(spec, { name: 'guardagent-mcp-proxy', version: '0.1.0' }));
        if (options.port !== undefined) await serveHttp(stack, policy, upstreams, names, options);
        else await serveStdio(stack, policy, upstreams, names, options);
      } finally {
        await Promise.all(upstreams.map((u) => u.close().catch(() => undefined)));
        await stack.stop();
      }
    });
}

const untilSignal = () =>
  new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });

async function serveStdio(stack: LocalStack, policy: Policy, upstreams: Upstream[], names: ToolNames, options: McpOptions): Promise<void> {
  const subject = readSubject(options.subject!);
  const guard = new CallGuard({
    transport: stack.client,
    policy,
    subject,
    // In Redis: a restarted or reconnected proxy presents the token of a call held before.
    heldCalls: stack.client.heldCalls(),
    timeoutMs: Number(options.timeout),
  });
  const proxy = await startStdioProxy({ upstreams, names, guard, visibility: toolVisibility(policy, subject.roles), log });
  log('serving on stdio', { policy: policy.id, tools: names.prefixed ? 'prefixed with <upstream>__' : 'as the server names them' });
  await Promise.race([proxy.closed, untilSignal()]);
  await proxy.close();
}

async function serveHttp(stack: LocalStack, policy: Policy, upstreams: Upstream[], names: ToolNames, options: McpOptions): Promise<void> {
  const fallback = options.subject ? readSubject(options.subject) : null;
  const perTenant = options.subjects ? (readDataFile(options.subjects) as Record<string, unknown>) : {};
  if (!perTenant || typeof perTenant !== 'object' || Array.isArray(perTenant)) {
    throw new ValidationError(options.subjects ?? '--subjects', [{ path: '', message: 'an object of tenant id → subject' }]);
  }
  const subjects = new Map(Object.entries(perTenant).map(([tenant, value]) => [tenant, parseOrThrow(SubjectSchema, value, `--subjects.${tenant}`)]));
  if (!fallback && subjects.size === 0) throw new ValidationError('mcp', [{ path: 'subject', message: 'HTTP mode needs --subjects FILE or --subject' }]);

  // Connected before the proxy serves: without the offline queue, a key lookup sent while the
  // connection was still opening failed at once, and the first clients got 503.
  const redis = createRedisConnection(stack.redisUrl, 'producer', 'mcp-keys');
  await waitUntilReady(redis, 10_000);
  // The tenants' keys, as the gateway reads them (stdio mode needs none).
  const apiKeys = new ApiKeyStore(redis, stack.config.prefix);
  const transports = new Map<string, Promise<QueueTransport>>();
  const transportFor = (tenant: string): Promise<QueueTransport> => {
    let transport = transports.get(tenant);
    if (!transport) {
      transport = connectTenant(stack, tenant);
      transports.set(tenant, transport);
      transport.catch(() => transports.delete(tenant));
    }
    return transport;
  };
  const admissions = new Map<string, JobAdmission>();
  const proxy = await startHttpProxy({
    upstreams,
    names,
    policy,
    port: Number(options.port),
    host: options.host,
    timeoutMs: Number(options.timeout),
    maxSessions: positiveInteger(options.maxSessions, '--max-sessions'),
    maxSessionsPerTenant: positiveInteger(options.maxTenantSessions, '--max-tenant-sessions'),
    log,
    async authenticate(key) {
      const caller = await callerOfKey({ adminKey: stack.config.adminKey, apiKeys }, key);
      // Calling tools through the guard is checking; a key without `check` (none today) gets nothing.
      if (!caller || !scopeGrants(caller.scopes, 'check')) return null;
      // --subject stands for the one tenant the proxy was started for, never for every key.
      const subject = subjects.get(caller.tenant) ?? (caller.tenant === options.tenant ? fallback : null);
      return subject ? { tenant: caller.tenant, subject } : { forbidden: `This MCP proxy serves no subject for tenant '${caller.tenant}'` };
    },
    transportFor,
    // Held calls in the tenant's Redis: every session, reconnect and proxy process agrees on them.
    heldCallsFor: async (tenant) => (await transportFor(tenant)).heldCalls(),
    // The gateway's own admission (same Redis keys under the tenant's shard): a tenant's checks
    // through the proxy and through the gateway draw on one budget.
    async admissionFor(tenant) {
      let admission = admissions.get(tenant);
      if (!admission) {
        const shardPrefix = (await transportFor(tenant)).prefix;
        const check = new CheckAdmission(redis, shardPrefix, stack.config.quotas);
        admission = {
          admit: (ids) => check.admit(tenant, ids),
          admitWaiting: (ids, maxWaitMs) => check.admitWaiting(tenant, ids, { maxWaitMs }),
        };
        admissions.set(tenant, admission);
      }
      return admission;
    },
  });
  log('serving MCP streamable HTTP', { url: proxy.url, policy: policy.id });
  try {
    await untilSignal();
  } finally {
    await proxy.close();
    await Promise.all([...transports.values()].map((t) => t.then((q) => q.close(), () => undefined)));
    redis.disconnect();
  }
}

function positiveInteger(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new ValidationError('mcp', [{ path: flag, message: 'a positive integer' }]);
  return n;
}

function connectTenant(stack: LocalStack, tenant: string): Promise<QueueTransport> {
  return QueueTransport.connect({ redisUrl: stack.redisUrl, prefix: stack.config.prefix, shards: stack.config.shards, tenant, resultTtlSeconds: stack.config.resultTtlSeconds, chunkMax: stack.config.chunks.max, chunkLingerMs: stack.config.chunks.lingerMs });
}
