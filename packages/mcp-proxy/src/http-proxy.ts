import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryHeldCalls, type HeldCalls, type Policy, type SubjectInput } from '@guardagent/client';
import { CallGuard, type CheckingTransport, type JobAdmission } from './call-guard';
import { createGuardedServer } from './guarded-server';
import { ToolVerdicts } from './tool-catalogue';
import type { ToolNames } from './tool-names';
import { toolVisibility } from './tool-visibility';
import type { Upstream } from './upstream';

/** Who a bearer key stands for. */
export interface HttpCaller {
  tenant: string;
  subject: SubjectInput;
}

export interface HttpProxyOptions {
  upstreams: readonly Upstream[];
  names: ToolNames;
  policy: Policy;
  /**
   * Resolves a bearer key to its caller; null for an unknown key (401); `{ forbidden }` for a
   * valid key this proxy does not serve (403 with that message).
   */
  authenticate(bearerKey: string): Promise<HttpCaller | null | { forbidden: string }>;
  /** The guard transport of a tenant (jobs are submitted under that tenant). */
  transportFor(tenant: string): Promise<CheckingTransport>;
  /**
   * The tenant's quota admission (the gateway's CheckAdmission): every guard job of its sessions
   * goes through it. Without it, the proxy enforces no quota.
   */
  admissionFor?(tenant: string): JobAdmission | Promise<JobAdmission>;
  /**
   * Where the tenant's held calls are kept (RedisHeldCalls: every session, reconnect and proxy
   * process of the tenant agrees on them). Without it, in this process only.
   */
  heldCallsFor?(tenant: string): HeldCalls | Promise<HeldCalls>;
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Path of the MCP endpoint (default `/mcp`). */
  path?: string;
  timeoutMs?: number;
  /** At most this many open sessions (default 1000); beyond, new ones get 503. */
  maxSessions?: number;
  /** At most this many open sessions per tenant (default 100); beyond, the tenant's new ones get 429. */
  maxSessionsPerTenant?: number;
  /** A session unused this long is closed (default 30 min), so abandoned ones do not fill `maxSessions`. */
  idleMs?: number;
  now?: () => number;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

export interface HttpProxy {
  url: string;
  /** Open sessions, of one tenant or of all. */
  sessions(tenant?: string): number;
  /** Closes the sessions idle longer than `idleMs` (also run every minute). */
  sweepIdle(): Promise<number>;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  caller: HttpCaller;
  lastUsed: number;
}

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;
const MAX_KEY_CHARS = 512;

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

const sameCaller = (a: HttpCaller, b: HttpCaller) => a.tenant === b.tenant && a.subject.id === b.subject.id;

/**
 * `guardagent mcp --port N`: the MCP streamable HTTP transport (official SDK), each session its
 * own guarded server for the caller its bearer key names. A session answers only the caller
 * that opened it; another key presenting its id gets 404, like an unknown session.
 * Sessions are capped per tenant (429) and in all (503), sessions being opened included; idle
 * ones are closed after `idleMs`, and swept at once when a cap is reached.
 */
export async function startHttpProxy(options: HttpProxyOptions): Promise<HttpProxy> {
  const path = options.path ?? '/mcp';
  const maxSessions = options.maxSessions ?? 1000;
  const maxPerTenant = options.maxSessionsPerTenant ?? 100;
  const log = options.log ?? (() => undefined);
  const sessions = new Map<string, Session>();
  const heldByTenant = new Map<string, HeldCalls>();
  const verdictsByTenant = new Map<string, ToolVerdicts>();
  const now = options.now ?? Date.now;
  const idleMs = options.idleMs ?? 30 * 60_000;
  /** Sessions open or being opened, per tenant and in all. */
  const held = new Map<string, number>();
  let heldTotal = 0;
  const hold = (tenant: string, delta: number) => {
    const n = (held.get(tenant) ?? 0) + delta;
    if (n > 0) held.set(tenant, n);
    else held.delete(tenant);
    heldTotal += delta;
  };
  const dropSession = (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    hold(session.caller.tenant, -1);
  };

  const perTenant = <T>(map: Map<string, T>, tenant: string, create: () => T): T => {
    let value = map.get(tenant);
    if (value === undefined) {
      value = create();
      map.set(tenant, value);
    }
    return value;
  };

  const openSession = async (caller: HttpCaller, onInitialized: () => void): Promise<StreamableHTTPServerTransport> => {
    const guard = new CallGuard({
      transport: await options.transportFor(caller.tenant),
      policy: options.policy,
      subject: caller.subject,
      heldCalls: options.heldCallsFor ? await options.heldCallsFor(caller.tenant) : perTenant(heldByTenant, caller.tenant, () => new InMemoryHeldCalls()),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.admissionFor ? { admission: await options.admissionFor(caller.tenant) } : {}),
    });
    const server = createGuardedServer({
      upstreams: options.upstreams,
      names: options.names,
      guard,
      visibility: toolVisibility(options.policy, caller.subject.roles ?? []),
      toolVerdicts: perTenant(verdictsByTenant, caller.tenant, () => new ToolVerdicts()),
      log,
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, caller, lastUsed: now() });
        onInitialized();
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) dropSession(transport.sessionId);
    };
    await server.connect(transport);
    return transport;
  };

  const sweepIdle = async (): Promise<number> => {
    const idle = [...sessions.entries()].filter(([, s]) => now() - s.lastUsed > idleMs);
    for (const [id] of idle) dropSession(id);
    await Promise.all(idle.map(([, s]) => s.transport.close().catch(() => undefined)));
    return idle.length;
  };

  /** Seconds until the tenant's least recently used session expires (when a new one could fit). */
  const retryAfter = (tenant: string): string => {
    let oldest = Infinity;
    for (const s of sessions.values()) if (s.caller.tenant === tenant) oldest = Math.min(oldest, s.lastUsed);
    const seconds = Number.isFinite(oldest) ? Math.ceil((oldest + idleMs - now()) / 1000) : 1;
    return String(Math.max(1, seconds));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    if (url.pathname !== path) return refuse(res, 404, 'Not found');
    const match = BEARER.exec(req.headers.authorization ?? '');
    const key = match?.[1];
    let found: HttpCaller | null | { forbidden: string } = null;
    try {
      found = key && key.length <= MAX_KEY_CHARS ? await options.authenticate(key) : null;
    } catch (error) {
      // The key store (Redis) is unreachable: no one is let in, and the client may retry.
      log('authentication unavailable', { error: (error as Error)?.message });
      return refuse(res, 503, 'Authentication is unavailable; retry later');
    }
    if (!found) return refuse(res, 401, 'Send Authorization: Bearer <apiKey> with a valid key', { 'www-authenticate': 'Bearer' });
    if ('forbidden' in found) return refuse(res, 403, found.forbidden);
    const caller = found;

    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session || !sameCaller(session.caller, caller)) return refuse(res, 404, 'Session not found');
      session.lastUsed = now();
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return refuse(res, 400, 'No session: start one with an initialize request (POST)');
    const tenant = caller.tenant;
    if ((held.get(tenant) ?? 0) >= maxPerTenant || heldTotal >= maxSessions) await sweepIdle();
    if ((held.get(tenant) ?? 0) >= maxPerTenant) {
      log('session refused: tenant at its cap', { tenant, max: maxPerTenant });
      return refuse(res, 429, `Too many open sessions for this tenant (at most ${maxPerTenant}); close one or retry later`, { 'retry-after': retryAfter(tenant) });
    }
    if (heldTotal >= maxSessions) return refuse(res, 503, 'Too many open sessions; retry later');
    // Held from now: sessions being opened count against the caps too.
    hold(tenant, 1);
    let initialized = false;
    let transport: StreamableHTTPServerTransport;
    try {
      transport = await openSession(caller, () => (initialized = true));
    } catch (error) {
      hold(tenant, -1);
      throw error;
    }
    // A request that did not initialize a session leaves nothing behind.
    res.on('close', () => {
      if (initialized) return;
      hold(tenant, -1);
      void transport.close();
    });
    await transport.handleRequest(req, res);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log('http request failed', { error: (error as Error)?.message });
      refuse(res, 500, 'Internal error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = http.address() as AddressInfo;
  const sweeper = setInterval(() => void sweepIdle(), 60_000);
  sweeper.unref();
  return {
    url: `http://${address.address}:${address.port}${path}`,
    sessions: (tenant?: string) => (tenant === undefined ? sessions.size : [...sessions.values()].filter((s) => s.caller.tenant === tenant).length),
    sweepIdle,
    async close() {
      clearInterval(sweeper);
      const open = [...sessions.values()];
      for (const id of [...sessions.keys()]) dropSession(id);
      await Promise.all(open.map((s) => s.transport.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
