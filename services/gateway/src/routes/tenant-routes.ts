import { TenantCreateBodySchema } from '../api-schemas';
import type { GatewayDeps } from '../gateway-deps';
import { route, type AnyRouteSpec } from '../route-spec';

export function tenantRoutes(deps: GatewayDeps): AnyRouteSpec[] {
  return [
    route({
      method: 'POST',
      url: '/v1/tenants',
      operationId: 'createTenant',
      summary: 'Create a tenant and its API key (admin key only)',
      description: 'The API key is in this answer only; the gateway keeps its sha256. Everything the tenant creates is visible to it alone.',
      tag: 'tenants',
      auth: 'server-admin',
      body: { component: 'TenantCreate', schema: TenantCreateBodySchema },
      responses: {
        201: { description: 'Created', component: 'TenantCreated' },
        409: { description: 'The tenant id is taken (or reserved: `default` is the admin key\'s)' },
      },
      handler: async ({ body, reply }) => reply.code(201).send(await deps.tenants.create(body ?? {})),
    }),
  ];
}
