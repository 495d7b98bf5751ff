import type { Command } from 'commander';
import type { ApiKeyScope } from '@guardagent/client';
import { ValidationError } from '@guardagent/errors';
import { onGateway, printJson, withGatewayOption, type GatewayOptions } from '../gateway-client';

const SCOPES: readonly ApiKeyScope[] = ['check', 'feedback', 'operate', 'admin'];

function parseScopes(text: string): ApiKeyScope[] {
  const scopes = text.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = scopes.filter((s) => !SCOPES.includes(s as ApiKeyScope));
  if (scopes.length === 0 || unknown.length > 0) {
    throw new ValidationError('--scopes', [{ path: '', message: `a comma-separated list of ${SCOPES.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}` }]);
  }
  return scopes as ApiKeyScope[];
}

export function registerKeys(program: Command): void {
  const keys = withGatewayOption(
    program.command('keys').description("manage the tenant's API keys through the gateway (GUARDAGENT_API_KEY: a key with scope admin)"),
  );
  const on = (command: Command) => command.optsWithGlobals<GatewayOptions>();
  keys
    .command('list')
    .description('ids, names and scopes (never secrets)')
    .action(async (_options, command: Command) => printJson(await onGateway(on(command), 'tenant', 'keys', (g) => g.listKeys())));
  keys
    .command('create')
    .description('issue a key; the secret is printed once')
    .requiredOption('--scopes <list>', `comma-separated: ${SCOPES.join(', ')} (agents get check)`)
    .option('--name <name>', 'what the key is for')
    .action(async (options: { scopes: string; name?: string }, command: Command) =>
      printJson(await onGateway(on(command), 'tenant', 'keys', (g) => g.createKey({ scopes: parseScopes(options.scopes), ...(options.name ? { name: options.name } : {}) }))),
    );
  keys
    .command('rotate <id>')
    .description('a new secret for the key (same id and scopes)')
    .option('--overlap <seconds>', 'how long the old secret keeps working', '0')
    .action(async (id: string, options: { overlap: string }, command: Command) =>
      printJson(await onGateway(on(command), 'tenant', 'keys', (g) => g.rotateKey(id, { overlapSeconds: Number(options.overlap) }))),
    );
  keys
    .command('revoke <id>')
    .description('revoke the key at once')
    .action(async (id: string, _options, command: Command) => printJson(await onGateway(on(command), 'tenant', 'keys', (g) => g.revokeKey(id).then(() => ({ revoked: id })))));
}
