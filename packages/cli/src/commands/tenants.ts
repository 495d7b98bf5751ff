import type { Command } from 'commander';
import { ValidationError } from '@guardagent/errors';
import { didYouMean } from '@guardagent/schemas';
import { onGateway, printJson, withGatewayOption, type GatewayOptions } from '../gateway-client';

/** The quotas a tenant's overrides may set (PUT /v1/tenants/{id}/quotas). */
const QUOTAS = ['checksPerSecond', 'checkBurst', 'jobsInFlight', 'policies', 'storedBytes'];

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `checksPerSecond=50` → ['checksPerSecond', 50], naming the closest quota for a slip. */
function parseSetting(text: string): [string, number] {
  const eq = text.indexOf('=');
  const name = eq < 0 ? text : text.slice(0, eq);
  if (!QUOTAS.includes(name)) throw new ValidationError('--set', [{ path: name, message: `not a quota (${QUOTAS.join(', ')})${didYouMean(name, QUOTAS)}` }]);
  const value = Number(text.slice(eq + 1));
  if (eq < 0 || !Number.isInteger(value) || value < 1) throw new ValidationError('--set', [{ path: name, message: `give NAME=VALUE with a positive integer, got '${text}'` }]);
  return [name, value];
}

export function registerTenants(program: Command): void {
  const tenants = withGatewayOption(
    program.command('tenants').description('create and list tenants and set their quotas through the gateway (GUARDAGENT_ADMIN_KEY: the server admin key)'),
  );
  const on = (command: Command) => command.optsWithGlobals<GatewayOptions>();
  tenants
    .command('create')
    .description("create a tenant and its first key (scope admin: mint its agents' check keys from it with `guardagent keys create`); the key is printed once")
    .option('--id <id>', 'the tenant id (default: generated)')
    .option('--name <name>', 'what the tenant is')
    .action(async (options: { id?: string; name?: string }, command: Command) =>
      printJson(await onGateway(on(command), 'server-admin', 'tenants', (g) => g.createTenant({ ...(options.id ? { id: options.id } : {}), ...(options.name ? { name: options.name } : {}) }))),
    );
  tenants
    .command('list')
    .description('the tenants, oldest first, and how many there are')
    .option('--limit <n>', 'most tenants listed', '100')
    .option('--offset <n>', 'skip this many', '0')
    .action(async (options: { limit: string; offset: string }, command: Command) =>
      printJson(await onGateway(on(command), 'server-admin', 'tenants', (g) => g.listTenants({ limit: Number(options.limit), offset: Number(options.offset) })), true),
    );
  tenants
    .command('quotas <id>')
    .description(`a tenant's quotas in force, its overrides and what it holds; --set, --unset and --reset change the overrides (${QUOTAS.join(', ')})`)
    .option('--set <name=value>', 'override a quota (repeatable), keeping the other overrides', collect)
    .option('--unset <name>', 'drop an override: that quota takes the default again (repeatable)', collect)
    .option('--reset', 'drop every override')
    .action(async (id: string, options: { set?: string[]; unset?: string[]; reset?: boolean }, command: Command) => {
      const changes = (options.set ?? []).map(parseSetting);
      for (const name of options.unset ?? []) {
        if (!QUOTAS.includes(name)) throw new ValidationError('--unset', [{ path: name, message: `not a quota (${QUOTAS.join(', ')})${didYouMean(name, QUOTAS)}` }]);
      }
      const view = await onGateway(on(command), 'server-admin', 'tenants', async (g) => {
        if (changes.length === 0 && !options.unset?.length && !options.reset) return g.tenantQuotas(id);
        const overrides = options.reset ? {} : { ...(await g.tenantQuotas(id)).overrides };
        for (const name of options.unset ?? []) delete overrides[name];
        for (const [name, value] of changes) overrides[name] = value;
        return g.setTenantQuotas(id, overrides);
      });
      printJson(view, true);
    });
}
