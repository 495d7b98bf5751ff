import type { ToolApprovalResponse } from 'ai';
import type { ApprovalDecider, ApprovalReader, ApprovalView, HeldCall, HeldCalls, JsonObject, SubjectInput } from '@guardagent/client';

/** A tool approval request as a result's `content` carries it (in messages, its tool call is a part of its own). */
export interface ApprovalRequestPart {
  type: 'tool-approval-request';
  approvalId: string;
  toolCall: { toolCallId: string; toolName: string; input: unknown };
}

/** What the helpers need: the held calls the guarded tools keep, and who the conversation is for. */
export interface GuardApprovalOptions {
  /** The same HeldCalls the tools were guarded with. */
  heldCalls: HeldCalls;
  /** The subject the tools were guarded for (the session's user). */
  subject: SubjectInput;
}

/** A tool approval request GuardAgent caused, with the held call behind it. */
export interface GuardApprovalRequest {
  request: ApprovalRequestPart;
  held: HeldCall;
}

interface Part {
  type?: unknown;
  approvalId?: unknown;
  toolCallId?: unknown;
  toolName?: unknown;
  input?: unknown;
  toolCall?: { toolCallId: string; toolName: string; input: unknown };
}

/** The parts of a result's content, or of the assistant and tool messages of a conversation. */
function partsOf(entries: readonly unknown[]): Part[] {
  const parts: Part[] = [];
  for (const entry of entries) {
    if (!entry || typeof entry !== 'object') continue;
    const content = (entry as { role?: unknown; content?: unknown }).content;
    if ('role' in entry && Array.isArray(content)) parts.push(...(content as Part[]));
    else parts.push(entry as Part);
  }
  return parts;
}

/**
 * The tool approval requests GuardAgent caused that are not answered yet, each with its held call
 * (others are left out): from a result's `content`, or from the messages of a conversation.
 */
export async function guardApprovalRequests(contentOrMessages: readonly unknown[], options: GuardApprovalOptions): Promise<GuardApprovalRequest[]> {
  const parts = partsOf(contentOrMessages);
  const toolCalls = new Map<string, { toolCallId: string; toolName: string; input: unknown }>();
  const answered = new Set<unknown>();
  for (const part of parts) {
    if (part.type === 'tool-call' && typeof part.toolCallId === 'string' && typeof part.toolName === 'string') {
      toolCalls.set(part.toolCallId, { toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
    }
    if (part.type === 'tool-approval-response') answered.add(part.approvalId);
  }
  const out: GuardApprovalRequest[] = [];
  for (const part of parts) {
    if (part.type !== 'tool-approval-request' || typeof part.approvalId !== 'string' || answered.has(part.approvalId)) continue;
    const toolCall = part.toolCall ?? (typeof part.toolCallId === 'string' ? toolCalls.get(part.toolCallId) : undefined);
    const args = toolCall?.input;
    if (!toolCall || !args || typeof args !== 'object' || Array.isArray(args)) continue;
    const held = await options.heldCalls.get(options.subject.id, toolCall.toolName, args as JsonObject);
    if (held) out.push({ request: { type: 'tool-approval-request', approvalId: part.approvalId, toolCall }, held });
  }
  return out;
}

/** The refusal the model reads for a call a person rejected. */
function rejection(tool: string, view: Pick<ApprovalView, 'approver' | 'reason'>): string {
  const by = view.approver ? ` by ${view.approver}` : '';
  return `GuardAgent: the call to '${tool}' was rejected${by}${view.reason ? `: ${view.reason}` : ''}`;
}

/**
 * The `tool-approval-response` parts for the requests (in a result's content or a conversation's
 * messages, not answered yet) a person has decided in GuardAgent (the
 * API, the CLI, a chat button behind the approval webhook): approved, or denied with who rejected
 * it and why (an expired one: denied, not approved in time). `waiting`: nobody decided yet.
 * Append the responses as a `tool` message and call generateText again: the approved calls run
 * once, the model reads the refusals. Needs a transport that reads approvals (HttpTransport with
 * the agent's own `check` key, or QueueTransport).
 */
export async function guardAgentApprovalResponses(
  contentOrMessages: readonly unknown[],
  options: GuardApprovalOptions & { transport: ApprovalReader },
): Promise<{ responses: ToolApprovalResponse[]; waiting: GuardApprovalRequest[] }> {
  const responses: ToolApprovalResponse[] = [];
  const waiting: GuardApprovalRequest[] = [];
  for (const entry of await guardApprovalRequests(contentOrMessages, options)) {
    const { request } = entry;
    const view = await options.transport.approval(entry.held.token);
    if (view?.status === 'approved') {
      responses.push({ type: 'tool-approval-response', approvalId: request.approvalId, approved: true, ...(view.reason ? { reason: view.reason } : {}) });
    } else if (view?.status === 'rejected') {
      responses.push({ type: 'tool-approval-response', approvalId: request.approvalId, approved: false, reason: rejection(request.toolCall.toolName, view) });
    } else if (view === null || view.status === 'expired' || view.status === 'used') {
      responses.push({
        type: 'tool-approval-response',
        approvalId: request.approvalId,
        approved: false,
        reason: `GuardAgent: the call to '${request.toolCall.toolName}' was not approved in time (the approval ${view ? view.status : 'is unknown'})`,
      });
    } else {
      waiting.push(entry);
    }
  }
  return { responses, waiting };
}

/**
 * A person answered a tool approval request in your app (AI SDK 6's own flow): the decision is
 * recorded in GuardAgent under the approver's name (an approval is refused there for the call's
 * own subject, or once it expired or was rejected: then this throws), and the
 * `tool-approval-response` to append is returned. Approved, the resumed call runs once.
 */
export async function respondToApproval(
  request: ApprovalRequestPart,
  options: GuardApprovalOptions & { approved: boolean; approvals: ApprovalDecider; approver: string; reason?: string },
): Promise<ToolApprovalResponse> {
  const [entry] = await guardApprovalRequests([request], options);
  if (!entry) throw new Error(`no call held by GuardAgent behind the approval request for '${request.toolCall.toolName}' (the same heldCalls and subject as the tools?)`);
  const decided = { ...(options.reason ? { reason: options.reason } : {}) };
  if (options.approved) {
    const result = await options.approvals.approve(entry.held.id, options.approver, decided);
    if (result !== 'approved' && result !== 'already-approved') throw new Error(`GuardAgent refused the approval of '${request.toolCall.toolName}': ${result}`);
    return { type: 'tool-approval-response', approvalId: request.approvalId, approved: true, ...decided };
  }
  const result = await options.approvals.reject(entry.held.id, options.approver, decided).catch((error: unknown) => {
    // An expired call cannot run anyway: the denial to the model is all there is left to do.
    if ((error as { details?: { status?: unknown } })?.details?.status === 'expired') return 'expired';
    throw error;
  });
  if (result !== 'rejected' && result !== 'already-rejected' && result !== 'expired') throw new Error(`GuardAgent refused the rejection of '${request.toolCall.toolName}': ${result}`);
  return {
    type: 'tool-approval-response',
    approvalId: request.approvalId,
    approved: false,
    reason: rejection(request.toolCall.toolName, { approver: options.approver, ...decided }),
  };
}
