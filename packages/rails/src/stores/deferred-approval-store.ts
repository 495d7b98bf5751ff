import type { HashWrite } from '@guardagent/queue';
import type { ApprovalCall, ApprovalRecord, ApprovalRequest, ApprovalStore, ApprovalTicket, ApproveResult, ConsumeResult, DecideOptions, RejectResult } from './approval-store';
import type { RedisApprovalStore } from './redis-approval-store';

/**
 * A RedisApprovalStore for one guard run whose `create` writes nothing: it keeps the token's
 * record (`issued`) for the caller to write together with the pending decision. Everything else
 * goes to the store as it is.
 */
export class DeferredApprovalStore implements ApprovalStore {
  private record: HashWrite | undefined;

  constructor(private readonly store: RedisApprovalStore) {}

  /** The record of the token this run issued, if it issued one. */
  get issued(): HashWrite | undefined {
    return this.record;
  }

  async create(request: ApprovalRequest): Promise<ApprovalTicket> {
    const { ticket, write } = this.store.prepare(request);
    this.record = write;
    return ticket;
  }

  get(token: string, options?: { tenant?: string }): Promise<ApprovalRecord | null> {
    return this.store.get(token, options);
  }

  approve(token: string, approver: string, options?: DecideOptions): Promise<ApproveResult> {
    return this.store.approve(token, approver, options);
  }

  reject(token: string, approver: string, options?: DecideOptions): Promise<RejectResult> {
    return this.store.reject(token, approver, options);
  }

  consume(token: string, call: ApprovalCall): Promise<ConsumeResult> {
    return this.store.consume(token, call);
  }

  peek(token: string, call: ApprovalCall): Promise<ConsumeResult> {
    return this.store.peek(token, call);
  }
}
