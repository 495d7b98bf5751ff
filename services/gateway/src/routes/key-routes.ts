import { NotFoundError, ValidationError } from '@guardagent/errors';
import { KeyCreateBodySchema, KeyIdParamsSchema, KeyRotateBodySchema, KeyTenantQuerySchema } from '../api-schemas';
import type { GatewayDeps } from '../gateway-deps';
import { ForbiddenError } from '../gateway-errors';
import { route, type AnyRouteSpec } from '../route-spec';
import { ADMIN_TENANT, type Caller } from '@guardagent/api-keys';

/**
 * Whose keys a request manages: a tenant's `admin` key manages its own tenant's; the server's
 * admin key names the tenant (`?tenant=`), which is how an operator locked out of a tenant gets back in.
 */
async function keyTenant(deps: GatewayDeps, caller: Caller, tenant: string | undefined): Promise<string> {
  if (!caller.serverAdmin) {
    if (tenant !== undefined && tenant !== caller.tenant) throw new ForbiddenError("a tenant's key manages only its own tenant's keys");
    return caller.tenant;
  }
  if (tenant === undefined || tenant === ADMIN_TENANT) {
    throw new ValidationError('query parameters', [{ path: 'tenant', message: 'the server admin key names the tenant whose keys it manages' }]);
  }
  if (!(await deps.tenants.exists(tenant))) throw new NotFoundError('tenant', tenant);
  return tenant;
}

export function keyRoutes(deps: GatewayDeps): AnyRouteSpec[] {
  return [
    route({
      method: 'GET',
      url: '/v1/keys',
      operationId: 'listKeys',
      summary: "The tenant's API keys (ids, names, scopes; never secrets)",
      tag: 'keys',
      auth: 'admin',
      query: KeyTenantQuerySchema,
      responses: { 200: { description: 'The keys', component: 'KeyList' } },
      handler: async ({ caller, query }) => ({ keys: await deps.apiKeys.list(await keyTenant(deps, caller, query.tenant)) }),
    }),
    route({
      method: 'POST',
      url: '/v1/keys',
      operationId: 'createKey',
      summary: 'Issue an API key with the given scopes',
      description:
        'Give agents `check` keys: they can ask for decisions but not change the policy that guards them. The secret is ' +
        'in this answer only.',
      tag: 'keys',
      auth: 'admin',
      query: KeyTenantQuerySchema,
      body: { component: 'KeyCreate', schema: KeyCreateBodySchema },
      responses: { 201: { description: 'Issued', component: 'KeyIssued' } },
      handler: async ({ caller, query, body, reply }) =>
        reply.code(201).send(await deps.apiKeys.issue(await keyTenant(deps, caller, query.tenant), { name: body.name, scopes: body.scopes })),
    }),
    route({
      method: 'POST',
      url: '/v1/keys/:id/rotate',
      operationId: 'rotateKey',
      summary: 'A new secret for a key (same id and scopes)',
      description: 'The old secret stops working at once, or after `overlapSeconds` (up to a day) so agents can be redeployed.',
      tag: 'keys',
      auth: 'admin',
      params: KeyIdParamsSchema,
      query: KeyTenantQuerySchema,
      body: { component: 'KeyRotate', schema: KeyRotateBodySchema.optional() },
      responses: { 200: { description: 'Rotated', component: 'KeyIssued' }, 404: { description: 'Unknown key id' } },
      handler: async ({ caller, params, query, body }) =>
        deps.apiKeys.rotate(await keyTenant(deps, caller, query.tenant), params.id, { overlapSeconds: body?.overlapSeconds ?? 0 }),
    }),
    route({
      method: 'DELETE',
      url: '/v1/keys/:id',
      operationId: 'revokeKey',
      summary: 'Revoke a key at once',
      description: "The tenant's last admin key can be revoked only with the server admin key (409 otherwise).",
      tag: 'keys',
      auth: 'admin',
      params: KeyIdParamsSchema,
      query: KeyTenantQuerySchema,
      responses: { 204: { description: 'Revoked' }, 404: { description: 'Unknown key id' }, 409: { description: "The tenant's last admin key" } },
      handler: async ({ caller, params, query, reply }) => {
        await deps.apiKeys.revoke(await keyTenant(deps, caller, query.tenant), params.id, { allowLastAdmin: caller.serverAdmin });
        return reply.code(204).send();
      },
    }),
  ];
}
