import type { Command } from 'commander';
import { EXIT_CODES, GatewayError } from '@guardagent/client';
import { onGateway, printJson, withGatewayOption, type GatewayOptions } from '../gateway-client';

/**
 * Approving goes through the gateway, like `keys`: the token's record lives in the deployment's
 * Redis, and the gateway checks the key's scope (operate) and tenant.
 */
export function registerApprove(program: Command): void {
  withGatewayOption(
    program
      .command('approve')
      .description(
        'approve a pending tool call by its approval token (single use, bound to the exact tool and arguments), through the gateway ' +
          `(GUARDAGENT_API_KEY: a key with scope operate). Exit ${EXIT_CODES.OK} approved, ${EXIT_CODES.DENIED} refused (used, expired, or the subject approving its own call), ${EXIT_CODES.INVALID} unknown token`,
      )
      .requiredOption('--token <token>', 'the token of the pending decision')
      .requiredOption('--approver <name>', 'who approves (must not be the subject of the call)')
      .option('--tenant <id>', "whose call (the server admin key only; a tenant's key approves its own tenant's calls)"),
  ).action(async (options: GatewayOptions & { token: string; approver: string; tenant?: string }) => {
    try {
      const result = await onGateway(options, 'tenant', 'approve', (g) => g.approve(options.token, options.approver, options.tenant ? { tenant: options.tenant } : {}));
      printJson({ result });
    } catch (error) {
      // The gateway's refusals of the token itself are the answer "no", not a usage mistake.
      if (!(error instanceof GatewayError) || (error.code !== 'CONFLICT' && !(error.code === 'FORBIDDEN' && error.message.includes('subject')))) throw error;
      printJson({ result: 'refused', code: error.code, message: error.message });
      process.exitCode = EXIT_CODES.DENIED;
    }
  });
}
