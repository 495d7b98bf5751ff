import type { Command } from 'commander';
import { HttpTransport, type ApiKeyScope } from '@guardagent/client';
import { ConfigError, ValidationError } from '@guardagent/errors';

const SCOPES: readonly ApiKeyScope[] = ['check', 'feedback', 'operate', 'admin'];

interface GatewayOptions {
  gateway: string;
}

/** Keys are the gateway's: these commands talk to it over HTTP with GUARDAGENT_API_KEY (a key with scope admin). */
function transport(options: GatewayOptions): HttpTransport {
  const apiKey = process.env.GUARDAGENT_API_KEY;
  if (!apiKey) throw new ConfigError('keys needs GUARDAGENT_API_KEY: a key with scope admin (or the server admin key)');
  return new HttpTransport({ baseUrl: options.gateway, apiKey });
}

function parseScopes(text: string): ApiKeyScope[] {
  const scopes = text.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = scopes.filter((s) => !SCOPES.includes(s as ApiKeyScope));
  if (scopes.length === 0 || unknown.length > 0) {
    throw new ValidationError('--scopes', [{ path: '', message: `a comma-separated list of ${SCOPES.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}` }]);
  }
  return scopes as ApiKeyScope[];
}

async function run<T>(options: GatewayOptions, act: (t: HttpTransport) => Promise<T>): Promise<void> {
  const t = transport(options);
  try {
    const result = await act(t);
    if (result !== undefined) process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await t.close();
  }
}

export function registerKeys(program: Command): void {
  const keys = program
    .command('keys')
    .description("manage the tenant's API keys through the gateway (GUARDAGENT_API_KEY: a key with scope admin)")
    .option('--gateway <url>', 'the gateway', process.env.GUARDAGENT_URL ?? 'http://127.0.0.1:8080');
  const gatewayOf = (command: Command) => command.optsWithGlobals<GatewayOptions>();
  keys
    .command('list')
    .description('ids, names and scopes (never secrets)')
    .action(async (_options, command: Command) => run(gatewayOf(command), (t) => t.listKeys()));
  keys
    .command('create')
    .description('issue a key; the secret is printed once')
    .requiredOption('--scopes <list>', `comma-separated: ${SCOPES.join(', ')} (agents get check)`)
    .option('--name <name>', 'what the key is for')
    .action(async (options: { scopes: string; name?: string }, command: Command) =>
      run(gatewayOf(command), (t) => t.createKey({ scopes: parseScopes(options.scopes), ...(options.name ? { name: options.name } : {}) })),
    );
  keys
    .command('rotate <id>')
    .description('a new secret for the key (same id and scopes)')
    .option('--overlap <seconds>', 'how long the old secret keeps working', '0')
    .action(async (id: string, options: { overlap: string }, command: Command) =>
      run(gatewayOf(command), (t) => t.rotateKey(id, { overlapSeconds: Number(options.overlap) })),
    );
  keys
    .command('revoke <id>')
    .description('revoke the key at once')
    .action(async (id: string, _options, command: Command) => run(gatewayOf(command), (t) => t.revokeKey(id).then(() => ({ revoked: id }))));
}
