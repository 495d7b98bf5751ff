import type { Command } from 'commander';
import { EXIT_CODES, GatewayError, type HttpTransport } from '@guardagent/client';
import { ValidationError } from '@guardagent/errors';
import { onGateway, printJson, withGatewayOption, type GatewayOptions } from '../gateway-client';

interface DecideOptions extends GatewayOptions {
  token?: string;
  id?: string;
  approver: string;
  reason?: string;
  tenant?: string;
}

const decideCommand = (program: Command, name: 'approve' | 'reject', description: string) =>
  withGatewayOption(
    program
      .command(name)
      .description(description)
      .option('--id <id>', 'the held call\'s approval id (from `guardagent approvals`, a webhook or the pending decision)')
      .option('--token <token>', 'the token of the pending decision (instead of --id)')
      .requiredOption('--approver <name>', name === 'approve' ? 'who approves (must not be the subject of the call)' : 'who rejects')
      .option('--reason <text>', name === 'approve' ? 'why (kept with the approval)' : "why (the agent's model reads it)")
      .option('--tenant <id>', "whose call (the server admin key only; a tenant's key decides its own tenant's calls)"),
  );

/** Approve or reject through the gateway; its refusals of the call itself (rejected, used, expired, self-approval) are the answer "no" (exit 1). */
async function decide(action: 'approve' | 'reject', options: DecideOptions): Promise<void> {
  const ref = options.id ?? options.token;
  if (!ref || (options.id && options.token)) throw new ValidationError(action, [{ path: 'id', message: 'give the held call by --id ID or --token TOKEN (one of them)' }]);
  const decisionOptions = { ...(options.reason ? { reason: options.reason } : {}), ...(options.tenant ? { tenant: options.tenant } : {}) };
  try {
    const result = await onGateway(options, 'tenant', action, (g: HttpTransport) =>
      action === 'approve' ? g.approve(ref, options.approver, decisionOptions) : g.reject(ref, options.approver, decisionOptions),
    );
    printJson({ result });
  } catch (error) {
    if (!(error instanceof GatewayError) || (error.code !== 'CONFLICT' && !(error.code === 'FORBIDDEN' && error.details.refusal === 'self-approval'))) throw error;
    printJson({ result: 'refused', code: error.code, message: error.message });
    process.exitCode = EXIT_CODES.DENIED;
  }
}

/**
 * Approving and rejecting go through the gateway, like `keys`: the records live in the
 * deployment's Redis, and the gateway checks the key's scope (operate) and tenant.
 */
export function registerApprove(program: Command): void {
  decideCommand(
    program,
    'approve',
    'approve a held tool call by its approval id or token (single use, bound to the exact tool and arguments), through the gateway ' +
      `(GUARDAGENT_API_KEY: a key with scope operate). Exit ${EXIT_CODES.OK} approved, ${EXIT_CODES.DENIED} refused (rejected, used, expired, or the subject approving its own call), ${EXIT_CODES.INVALID} unknown`,
  ).action((options: DecideOptions) => decide('approve', options));
}

export function registerReject(program: Command): void {
  decideCommand(
    program,
    'reject',
    "reject a held tool call by its approval id or token, with a reason its agent's model reads; its token never runs the call. " +
      `Through the gateway (scope operate). Exit ${EXIT_CODES.OK} rejected, ${EXIT_CODES.DENIED} refused (used or expired), ${EXIT_CODES.INVALID} unknown`,
  ).action((options: DecideOptions) => decide('reject', options));
}
