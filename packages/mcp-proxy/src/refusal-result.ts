import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Decision } from '@guardagent/client';

const META_KEY = 'guardagent/decision';

const meta = (decision: Decision | null, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  [META_KEY]: {
    ...(decision ? { id: decision.id, decision: decision.decision, status: decision.status, layer: decision.layer, rules: decision.rules } : { decision: 'deny', status: 'guard_error' }),
    ...extra,
  },
});

/**
 * A refused call as an MCP tool error result, never a protocol error: the model reads the reasons
 * and can adapt. The decision's id and rules ride along in `_meta` for clients that log them.
 */
export function deniedResult(tool: string, reasons: readonly string[], decision: Decision | null): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `GuardAgent denied the call to '${tool}'. Reasons: ${reasons.join('; ')}` }],
    _meta: meta(decision),
  };
}

/** A held call (or a retry of one nobody decided yet) as a tool error result: the reasons, the token, its id and expiry. */
export function heldResult(
  tool: string,
  held: { reasons: readonly string[]; token: string; id: string; expiresAt: string | null; waiting: boolean },
  decision: Decision,
): CallToolResult {
  const expiry = held.expiresAt ? ` (expires ${held.expiresAt})` : '';
  const opening = held.waiting
    ? `GuardAgent still holds the call to '${tool}' for approval (${held.reasons.join('; ')}): the approval token has not been approved yet. `
    : `GuardAgent held the call to '${tool}' for approval (${held.reasons.join('; ')}). `;
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text:
          opening +
          `Approval id: ${held.id}; approval token: ${held.token}${expiry}. It was not run. ` +
          'Once a human approves it, make exactly the same call again (same tool, same arguments): it will run once.',
      },
    ],
    _meta: meta(decision, { approval: { token: held.token, id: held.id, expiresAt: held.expiresAt } }),
  };
}

export function withheldResult(tool: string, reasons: readonly string[]): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `GuardAgent withheld the result of '${tool}' (the call did run). Reasons: ${reasons.join('; ')}` }],
    _meta: { [META_KEY]: { decision: 'deny', phase: 'result' } },
  };
}

/** The upstream's error message, once it passed the output rails (see filterUpstreamError). */
export function upstreamErrorResult(tool: string, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `The MCP server failed the call to '${tool}': ${message}` }] };
}

/** The upstream failed the call and its error message did not pass the output rails. */
export function withheldErrorResult(tool: string, reasons: readonly string[]): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `The MCP server failed the call to '${tool}'; GuardAgent withheld its error message. Reasons: ${reasons.join('; ')}` }],
    _meta: { [META_KEY]: { decision: 'deny', phase: 'error' } },
  };
}
