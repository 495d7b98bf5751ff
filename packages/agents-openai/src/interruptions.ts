import type { RunContext, RunState, RunToolApprovalItem } from '@openai/agents';
import type { ApprovalDecider, ApprovalReader, ApprovalView, HeldCall, HeldCalls, JsonObject, SubjectInput } from '@guardagent/client';

/** What the interruption helpers need: the held calls the guarded tools keep, and who the run acts for. */
export interface GuardInterruptionOptions<C> {
  /** The same HeldCalls the guarded tools were given. */
  heldCalls: HeldCalls;
  /** The same subject as the guarded tools' (read from the run's context). */
  subject: SubjectInput | ((context: RunContext<C>) => SubjectInput);
}

/** An interruption of a run that GuardAgent caused: the SDK's approval item and the held call behind it. */
export interface GuardInterruption {
  item: RunToolApprovalItem;
  held: HeldCall;
}

// biome-ignore lint/suspicious/noExplicitAny: a run state of any agent
type AnyRunState<C> = RunState<C, any>;

const argsOf = (item: RunToolApprovalItem): JsonObject | null => {
  try {
    const value = JSON.parse(item.arguments ?? '{}') as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : null;
  } catch {
    return null;
  }
};

/** The run's interruptions GuardAgent caused, each with its held call (interruptions of other tools are left out). */
export async function guardInterruptions<C>(state: AnyRunState<C>, options: GuardInterruptionOptions<C>): Promise<GuardInterruption[]> {
  const subject = typeof options.subject === 'function' ? options.subject(state._context) : options.subject;
  const out: GuardInterruption[] = [];
  for (const item of state.getInterruptions()) {
    const args = argsOf(item);
    const tool = item.name;
    if (!args || !tool) continue;
    const held = await options.heldCalls.get(subject.id, tool, args);
    if (held) out.push({ item, held });
  }
  return out;
}

/** The refusal the model reads for a call a person rejected. */
function rejectionMessage(tool: string, view: Pick<ApprovalView, 'approver' | 'reason'>): string {
  const by = view.approver ? ` by ${view.approver}` : '';
  return `GuardAgent: the call to '${tool}' was rejected${by}${view.reason ? `: ${view.reason}` : ''}. The tool did not run.`;
}

export interface AppliedApprovals {
  /** Approved in GuardAgent: approved in the run state (resumed, each runs once). */
  approved: RunToolApprovalItem[];
  /** Rejected (or expired) in GuardAgent: rejected in the run state, with who and why for the model. */
  rejected: RunToolApprovalItem[];
  /** Nobody decided yet: still interruptions. Run again once a person decides (a webhook tells you when). */
  waiting: RunToolApprovalItem[];
}

/**
 * Brings what people decided in GuardAgent (the API, the CLI, a chat button behind the approval
 * webhook) into a run interrupted by held calls: each approved call is approved in the run state,
 * each rejected or expired one is rejected there with a message that tells the model who rejected
 * it and why. Then `run(agent, state)` resumes: the approved calls run once (their guardrail
 * presents the token), the model reads the refusals. Needs a transport that reads approvals
 * (HttpTransport with the agent's own `check` key, or QueueTransport).
 */
export async function applyGuardAgentApprovals<C>(state: AnyRunState<C>, options: GuardInterruptionOptions<C> & { transport: ApprovalReader }): Promise<AppliedApprovals> {
  const applied: AppliedApprovals = { approved: [], rejected: [], waiting: [] };
  for (const { item, held } of await guardInterruptions(state, options)) {
    const view = await options.transport.approval(held.token);
    const tool = item.name ?? 'tool';
    if (view?.status === 'approved') {
      state.approve(item);
      applied.approved.push(item);
    } else if (view?.status === 'rejected') {
      state.reject(item, { message: rejectionMessage(tool, view) });
      applied.rejected.push(item);
    } else if (view === null || view.status === 'expired' || view.status === 'used') {
      // Past its expiry (or gone): it can no longer be approved, so the run goes on without it.
      state.reject(item, { message: `GuardAgent: the call to '${tool}' was not approved in time (the approval ${view ? view.status : 'is unknown'}). The tool did not run.` });
      applied.rejected.push(item);
    } else {
      applied.waiting.push(item);
    }
  }
  return applied;
}

/** Who decides through the SDK's own flow, recorded in GuardAgent (a transport with an `operate` key, or QueueTransport). */
export interface SdkDecisionOptions<C> extends GuardInterruptionOptions<C> {
  approvals: ApprovalDecider;
  approver: string;
  reason?: string;
}

async function heldCallOf<C>(state: AnyRunState<C>, item: RunToolApprovalItem, options: GuardInterruptionOptions<C>): Promise<HeldCall> {
  const found = (await guardInterruptions(state, options)).find((entry) => entry.item === item || entry.item.rawItem === item.rawItem);
  if (!found) throw new Error(`no call held by GuardAgent behind this interruption of '${item.name}' (is it a GuardAgent-guarded tool, with the same heldCalls and subject?)`);
  return found.held;
}

/**
 * A person approved a held call in your app (the SDK's own flow): the approval is recorded in
 * GuardAgent under the approver's name (refused there for the call's own subject, or once it
 * expired or was rejected: then this throws and the run state is left as it is), and the item is
 * approved in the run state. `run(agent, state)` then runs the call once.
 */
export async function approveInterruption<C>(state: AnyRunState<C>, item: RunToolApprovalItem, options: SdkDecisionOptions<C>): Promise<void> {
  const held = await heldCallOf(state, item, options);
  const result = await options.approvals.approve(held.id, options.approver, options.reason ? { reason: options.reason } : {});
  if (result !== 'approved' && result !== 'already-approved') throw new Error(`GuardAgent refused the approval of '${item.name}': ${result}`);
  state.approve(item);
}

/**
 * A person rejected a held call in your app: the rejection (with its reason) is recorded in
 * GuardAgent, so its token can never run the call, and the item is rejected in the run state with
 * a message that tells the model who rejected it and why.
 */
export async function rejectInterruption<C>(state: AnyRunState<C>, item: RunToolApprovalItem, options: SdkDecisionOptions<C>): Promise<void> {
  const held = await heldCallOf(state, item, options);
  // An expired call cannot run anyway: rejecting it in the run is all there is left to do.
  const result = await options.approvals.reject(held.id, options.approver, options.reason ? { reason: options.reason } : {}).catch((error: unknown) => {
    if ((error as { details?: { status?: unknown } })?.details?.status === 'expired') return 'expired';
    throw error;
  });
  if (result !== 'rejected' && result !== 'already-rejected' && result !== 'expired') throw new Error(`GuardAgent refused the rejection of '${item.name}': ${result}`);
  state.reject(item, { message: rejectionMessage(item.name ?? 'tool', { approver: options.approver, ...(options.reason ? { reason: options.reason } : {}) }) });
}
