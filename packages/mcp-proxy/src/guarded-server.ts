import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '@guardagent/client';
import { offerToWaitForApproval, type ApprovalWaitOptions } from './approval-wait';
import type { CallGuard } from './call-guard';
import { deniedResult, heldResult, upstreamErrorResult, withheldErrorResult, withheldResult } from './refusal-result';
import { filterToolResult, filterUpstreamError } from './result-filter';
import { ToolVerdicts, vetTool, vetTools, type ToolVerdict } from './tool-catalogue';
import type { ToolNames } from './tool-names';
import type { ToolVisibility } from './tool-visibility';
import type { Upstream } from './upstream';

/** Bounds on what an upstream may make the proxy hold. */
export const MAX_LIST_PAGES = 20;
export const MAX_TOOLS = 2000;
const RECENT_CALLS = 10;
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export interface GuardedServerOptions {
  upstreams: readonly Upstream[];
  names: ToolNames;
  guard: CallGuard;
  visibility: ToolVisibility;
  /** Waiting for an approval when the human chose to (elicitation). */
  approvalWait?: ApprovalWaitOptions;
  /** How long a forwarded call may take upstream (default 60 s). */
  callTimeoutMs?: number;
  /** Verdicts on tool entries, shared by the sessions of one tenant (default: this server's own). */
  toolVerdicts?: ToolVerdicts;
  log?: (message: string, fields?: Record<string, unknown>) => void;
  serverInfo?: { name: string; version: string };
}

/** What one exposed tool name stands for in this session's last vetted listing. */
interface Offered {
  upstream: Upstream;
  tool: string;
  verdict: ToolVerdict;
}

/**
 * The MCP server the client talks to (official SDK `Server`). It offers only tools: resources
 * and prompts of the upstreams are not proxied, since nothing would guard them.
 * - `tools/list`: every upstream's tools, named by `names`, minus those `visibility` hides, each
 *   entry through the output rails (vetTool): a tool whose entry is refused is hidden;
 * - `tools/call`: a guard job first; allow → the tool's entry must have passed the rails (else
 *   refused), then the upstream; its result (or error message) through the filters;
 *   deny / pending → a tool error result with the reasons (and the approval token).
 */
export function createGuardedServer(options: GuardedServerOptions): Server {
  const { upstreams, names, guard, visibility } = options;
  const log = options.log ?? (() => undefined);
  const server = new Server(options.serverInfo ?? { name: 'guardagent-mcp-proxy', version: '0.1.0' }, {
    capabilities: { tools: { listChanged: true } },
  });
  const byName = new Map(upstreams.map((u) => [u.name, u]));
  const recentCalls: { tool: string; decision: string }[] = [];
  const remember = (tool: string, decision: string) => {
    recentCalls.push({ tool, decision });
    if (recentCalls.length > RECENT_CALLS) recentCalls.shift();
  };

  const unsubscribe: (() => void)[] = upstreams.map((u) =>
    u.onToolsChanged(() => {
      server.sendToolListChanged().catch(() => undefined);
    }),
  );
  server.onclose = () => {
    for (const off of unsubscribe) off();
  };

  const verdicts = options.toolVerdicts ?? new ToolVerdicts();
  /** This session's last vetted listing, by exposed name (visible tools only); null until listed or after a change. */
  let offered: Map<string, Offered> | null = null;
  for (const upstream of upstreams) {
    unsubscribe.push(
      upstream.onToolsChanged(() => {
        offered = null;
      }),
    );
  }

  const listOffered = async (signal: AbortSignal): Promise<Map<string, Offered>> => {
    const found: { exposed: string; upstream: Upstream; tool: Tool }[] = [];
    for (const upstream of upstreams) {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES && found.length < MAX_TOOLS; page += 1) {
        let listed: Awaited<ReturnType<Upstream['client']['listTools']>>;
        try {
          listed = await upstream.client.listTools(cursor ? { cursor } : {}, { signal });
        } catch (error) {
          // The upstream's own words stay in our log: an error message is upstream text too.
          log('upstream tools/list failed', { upstream: upstream.name, error: (error as Error)?.message });
          throw new McpError(ErrorCode.InternalError, `the MCP server${upstream.name ? ` '${upstream.name}'` : ''} failed to list its tools`);
        }
        for (const tool of listed.tools) {
          if (!TOOL_NAME.test(tool.name)) continue;
          const exposed = names.expose({ upstream: upstream.name, tool: tool.name });
          if (visibility(exposed) && found.length < MAX_TOOLS) found.push({ exposed, upstream, tool });
        }
        cursor = listed.nextCursor;
        if (!cursor) break;
      }
    }
    const vetted = await vetTools(found, (f) => vetTool(guard, verdicts, f.exposed, f.tool));
    const listing = new Map<string, Offered>();
    found.forEach((f, i) => {
      const verdict = vetted[i];
      listing.set(f.exposed, { upstream: f.upstream, tool: f.tool.name, verdict });
      if (verdict.outcome === 'hide') log('tool hidden', { tool: f.exposed, decided: verdict.decided, reasons: verdict.reasons });
      else if (verdict.redacted.length > 0) log('tool entry redacted', { tool: f.exposed, paths: verdict.redacted });
    });
    offered = listing;
    return listing;
  };

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const listing = await listOffered(extra.signal);
    const tools: Tool[] = [];
    for (const entry of listing.values()) if (entry.verdict.outcome === 'show') tools.push(entry.verdict.tool);
    return { tools };
  });

  /** The session's verdict on a tool's entry, listing (and vetting) again when it has none or could not decide. */
  const offeredTool = async (exposed: string, signal: AbortSignal): Promise<Offered | undefined> => {
    const known = offered?.get(exposed);
    if (known && (known.verdict.outcome === 'show' || known.verdict.decided)) return known;
    return (await listOffered(signal)).get(exposed);
  };

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const exposed = request.params.name;
    const args = (request.params.arguments ?? {}) as JsonObject;
    const address = names.resolve(exposed);
    const upstream = address ? byName.get(address.upstream) : undefined;
    if (!address || !upstream) {
      remember(exposed, 'deny');
      return deniedResult(exposed, [`no tool '${exposed}' behind this proxy`], null);
    }
    const client = server.getClientVersion();
    const context = {
      upstream: address.upstream,
      ...(client ? { client: { name: client.name, version: client.version } } : {}),
      recentCalls: [...recentCalls],
    };
    let verdict = await guard.checkCall(exposed, args, context);
    if (verdict.outcome === 'pending') {
      verdict = await offerToWaitForApproval(server, guard, verdict, { tool: exposed, args, context, signal: extra.signal }, options.approvalWait);
    }
    log('tool call', { tool: exposed, outcome: verdict.outcome, decisionId: verdict.decision?.id });
    remember(exposed, verdict.outcome === 'forward' ? 'allow' : verdict.outcome);
    if (verdict.outcome === 'deny') return deniedResult(exposed, verdict.reasons, verdict.decision);
    if (verdict.outcome === 'pending') return heldResult(exposed, verdict, verdict.decision);

    // Only a tool whose catalogue entry passed the rails is called: one hidden for a poisoned
    // description stays uncallable by name too.
    let entry: Offered | undefined;
    try {
      entry = await offeredTool(exposed, extra.signal);
    } catch (error) {
      return deniedResult(exposed, [`${(error as Error).message}; the call was not forwarded`], verdict.decision);
    }
    if (!entry) return deniedResult(exposed, [`the MCP server does not offer a tool '${exposed}'; the call was not forwarded`], verdict.decision);
    if (entry.verdict.outcome === 'hide') {
      return deniedResult(exposed, [`the tool '${exposed}' is withheld from this client (${entry.verdict.reasons.join('; ')}); the call was not forwarded`], verdict.decision);
    }

    let result: CallToolResult;
    try {
      // The arguments the guard allowed (redacted when the policy redacts PII from them), never the client's own.
      result = (await entry.upstream.client.callTool({ name: entry.tool, arguments: verdict.args }, undefined, {
        signal: extra.signal,
        timeout: options.callTimeoutMs ?? 60_000,
      })) as CallToolResult;
    } catch (error) {
      const filteredError = await filterUpstreamError(guard, exposed, (error as Error)?.message ?? String(error));
      if (filteredError.outcome === 'block') {
        log('upstream error withheld', { tool: exposed, reasons: filteredError.reasons });
        return withheldErrorResult(exposed, filteredError.reasons);
      }
      return upstreamErrorResult(exposed, filteredError.message);
    }
    const filtered = await filterToolResult(guard, exposed, result);
    if (filtered.outcome === 'block') {
      log('tool result withheld', { tool: exposed, reasons: filtered.reasons });
      return withheldResult(exposed, filtered.reasons);
    }
    if (filtered.redacted.length > 0) log('tool result redacted', { tool: exposed, paths: filtered.redacted });
    return filtered.result;
  });

  return server;
}
