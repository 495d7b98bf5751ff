import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '@guardagent/schemas';
import { offerToWaitForApproval, type ApprovalWaitOptions } from './approval-wait';
import type { CallGuard } from './call-guard';
import { deniedResult, heldResult, upstreamErrorResult, withheldResult } from './refusal-result';
import { filterToolResult } from './result-filter';
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
  log?: (message: string, fields?: Record<string, unknown>) => void;
  serverInfo?: { name: string; version: string };
}

/**
 * The MCP server the client talks to (official SDK `Server`). It offers only tools: resources
 * and prompts of the upstreams are not proxied, since nothing would guard them.
 * - `tools/list`: every upstream's tools, named by `names`, minus those `visibility` hides;
 * - `tools/call`: a guard job first; allow → the upstream, its result through the filters;
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

  const unsubscribe = upstreams.map((u) =>
    u.onToolsChanged(() => {
      server.sendToolListChanged().catch(() => undefined);
    }),
  );
  server.onclose = () => unsubscribe.forEach((off) => off());

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const tools: Tool[] = [];
    for (const upstream of upstreams) {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES && tools.length < MAX_TOOLS; page += 1) {
        const listed = await upstream.client.listTools(cursor ? { cursor } : {}, { signal: extra.signal });
        for (const tool of listed.tools) {
          if (!TOOL_NAME.test(tool.name)) continue;
          const exposed = names.expose({ upstream: upstream.name, tool: tool.name });
          if (visibility(exposed) && tools.length < MAX_TOOLS) tools.push({ ...tool, name: exposed });
        }
        cursor = listed.nextCursor;
        if (!cursor) break;
      }
    }
    return { tools };
  });

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
    if (verdict.outcome === 'pending') return heldResult(exposed, verdict.reasons, verdict.decision, verdict.token, verdict.expiresAt);

    let result: CallToolResult;
    try {
      // The arguments the guard allowed (redacted when the policy redacts PII from them), never the client's own.
      result = (await upstream.client.callTool({ name: address.tool, arguments: verdict.args }, undefined, {
        signal: extra.signal,
        timeout: options.callTimeoutMs ?? 60_000,
      })) as CallToolResult;
    } catch (error) {
      return upstreamErrorResult(exposed, (error as Error)?.message ?? String(error));
    }
    const filtered = await filterToolResult(guard, exposed, result);
    if (filtered.outcome === 'block') {
      log('tool result withheld', { tool: exposed, reasons: filtered.reasons });
      return withheldResult(exposed, filtered.reasons);
    }
    return filtered.result;
  });

  return server;
}
