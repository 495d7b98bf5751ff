import type { Command } from 'commander';
import { HttpTransport } from '@guardagent/client';
import { envName, readEnv } from '@guardagent/config';
import { ConfigError } from '@guardagent/errors';

/** Where the gateway is when neither --gateway nor GUARDAGENT_URL says. */
const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:8080';

export interface GatewayOptions {
  gateway: string;
}

/** `--gateway <url>` on a command that talks to the gateway (default GUARDAGENT_URL, else DEFAULT_GATEWAY_URL). */
export function withGatewayOption(command: Command): Command {
  return command.option('--gateway <url>', `the gateway (${envName('gatewayUrl')} sets the default)`, readEnv('gatewayUrl') ?? DEFAULT_GATEWAY_URL);
}

/**
 * The key a gateway command sends. `tenant`: GUARDAGENT_API_KEY (a tenant's key with the scope the
 * command needs), else GUARDAGENT_ADMIN_KEY (which acts as tenant `default`). `server-admin`
 * (tenants): GUARDAGENT_ADMIN_KEY, else GUARDAGENT_API_KEY holding it.
 */
function keyFor(who: 'tenant' | 'server-admin', what: string): string {
  const [apiKey, adminKey] = [readEnv('apiKey'), readEnv('adminKey')];
  const key = who === 'tenant' ? (apiKey ?? adminKey) : (adminKey ?? apiKey);
  if (!key) {
    throw new ConfigError(
      who === 'tenant'
        ? `${what} needs ${envName('apiKey')}: a tenant's key with the scope it needs (or ${envName('adminKey')}, which acts as tenant 'default')`
        : `${what} needs ${envName('adminKey')}: the server admin key`,
    );
  }
  return key;
}

/** Run `act` against the gateway with the right key, closing the connection after. */
export async function onGateway<T>(options: GatewayOptions, who: 'tenant' | 'server-admin', what: string, act: (gateway: HttpTransport) => Promise<T>): Promise<T> {
  const gateway = new HttpTransport({ baseUrl: options.gateway, apiKey: keyFor(who, what) });
  try {
    return await act(gateway);
  } finally {
    await gateway.close();
  }
}

/** Print a result as one JSON line (pretty with `pretty`). */
export function printJson(value: unknown, pretty = false): void {
  process.stdout.write(`${JSON.stringify(value, null, pretty ? 2 : undefined)}\n`);
}
