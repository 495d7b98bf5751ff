import type { Command } from 'commander';
import { EXIT_CODES, type ApprovalView } from '@guardagent/client';
import { ValidationError } from '@guardagent/errors';
import { onGateway, printJson, withGatewayOption, type GatewayOptions } from '../gateway-client';

interface ListOptions extends GatewayOptions {
  status: string;
  policy?: string;
  tool?: string;
  subject?: string;
  limit: string;
  cursor?: string;
  all?: boolean;
  tenant?: string;
}

/** `guardagent approvals`: the tenant's held calls, through the gateway (scope operate). */
export function registerApprovals(program: Command): void {
  const approvals = program.command('approvals').description('held tool calls waiting for a person, through the gateway (GUARDAGENT_API_KEY: a key with scope operate)');
  withGatewayOption(
    approvals
      .command('list', { isDefault: true })
      .description(`the tenant's held calls, oldest first, one JSON line each (never a token); then {"next": cursor} when there are more. Exit ${EXIT_CODES.OK}`)
      .option('--status <status>', 'pending (waiting for a person) or approved (approved, not used yet)', 'pending')
      .option('--policy <id>', 'only calls held by this policy')
      .option('--tool <name>', 'only calls of this tool')
      .option('--subject <id>', 'only calls made for this subject')
      .option('--limit <n>', 'calls per page (1-500)', '50')
      .option('--cursor <cursor>', 'the `next` of the previous page')
      .option('--all', 'every page')
      .option('--tenant <id>', 'whose calls (the server admin key only)'),
  ).action(async (options: ListOptions) => {
    if (options.status !== 'pending' && options.status !== 'approved') throw new ValidationError('approvals', [{ path: 'status', message: 'pending or approved' }]);
    await onGateway(options, 'tenant', 'approvals', async (gateway) => {
      let cursor = options.cursor;
      for (;;) {
        const page = await gateway.listApprovals({
          status: options.status as 'pending' | 'approved',
          limit: Number(options.limit),
          ...(options.policy ? { policy: options.policy } : {}),
          ...(options.tool ? { tool: options.tool } : {}),
          ...(options.subject ? { subject: options.subject } : {}),
          ...(options.tenant ? { tenant: options.tenant } : {}),
          ...(cursor ? { cursor } : {}),
        });
        for (const approval of page.approvals) printJson(approval satisfies ApprovalView);
        if (page.next === null) return;
        if (!options.all) return printJson({ next: page.next });
        cursor = page.next;
      }
    });
  });
  withGatewayOption(
    approvals
      .command('show')
      .argument('<ref>', 'the held call\'s approval id (scope operate) or its token (any key of the tenant)')
      .description(`one held call and its status (pending, approved, rejected, used, expired). Exit ${EXIT_CODES.OK}, ${EXIT_CODES.INVALID} unknown`)
      .option('--tenant <id>', 'whose call (the server admin key only)'),
  ).action(async (ref: string, options: GatewayOptions & { tenant?: string }) => {
    const view = await onGateway(options, 'tenant', 'approvals show', (gateway) => gateway.approval(ref, options.tenant ? { tenant: options.tenant } : {}));
    if (view === null) throw new ValidationError('approvals show', [{ path: 'ref', message: 'no such held call for this tenant' }]);
    printJson(view, true);
  });
}
