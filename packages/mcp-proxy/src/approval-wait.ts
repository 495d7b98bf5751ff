import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { JsonObject } from '@guardagent/client';
import type { CallContext, CallGuard, CallVerdict } from './call-guard';

export interface ApprovalWaitOptions {
  /** How long to wait for the approver once the human chose to (default 45 s, under the SDK's 60 s request timeout). */
  maxMs?: number;
  /** How often the held call is checked again while waiting (default 1 s). */
  intervalMs?: number;
}

const delay = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });

/**
 * Where the client supports MCP elicitation, a held call asks the human right there whether to
 * wait for the approval. The human at the assistant is usually the subject, who may not approve
 * their own call, so the question is only whether to wait: an approver still approves the token
 * (API or CLI). While waiting, the call is checked again with its token; once approved it is
 * allowed (and the token used) exactly as a retry would be. Returns the last verdict.
 */
export async function offerToWaitForApproval(
  server: Server,
  guard: CallGuard,
  held: Extract<CallVerdict, { outcome: 'pending' }>,
  call: { tool: string; args: JsonObject; context: CallContext; signal: AbortSignal },
  options: ApprovalWaitOptions = {},
): Promise<CallVerdict> {
  if (!server.getClientCapabilities()?.elicitation) return held;
  let answer: Awaited<ReturnType<Server['elicitInput']>>;
  try {
    answer = await server.elicitInput({
      mode: 'form',
      message:
        `GuardAgent held the call to '${call.tool}' (${held.reasons.join('; ')}). ` +
        `An approver must approve it (approval id ${held.id}). Wait here for the approval?`,
      requestedSchema: { type: 'object', properties: { wait: { type: 'boolean', title: 'Wait for approval', default: true } }, required: ['wait'] },
    });
  } catch {
    return held;
  }
  if (answer.action !== 'accept' || answer.content?.wait !== true) return held;

  const deadline = Date.now() + (options.maxMs ?? 45_000);
  for (;;) {
    const verdict = await guard.checkCall(call.tool, call.args, call.context);
    const waiting = verdict.outcome === 'pending' && verdict.waiting && verdict.token === held.token;
    if (!waiting || Date.now() >= deadline || call.signal.aborted) return waiting ? held : verdict;
    await delay(options.intervalMs ?? 1000, call.signal);
  }
}
