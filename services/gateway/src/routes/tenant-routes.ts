import { NotFoundError } from '@guardagent/errors';
import { QuotaOverridesBodySchema, TenantCreateBodySchema, TenantListQuerySchema, TenantParamsSchema } from '../api-schemas';
import type { GatewayDeps } from '../gateway-deps';
import { route, type AnyRouteSpec } from '../route-spec';

async function quotasView(deps: GatewayDeps, tenant: string) {
  const shard = deps.shardOf(tenant);
  const [overrides, inFlight, storedBytes] = await Promise.all([shard.quotas.overrides(tenant), shard.admission.inFlight(tenant), shard.admission.storedBytes(tenant)]);
  return { quotas: { ...shard.quotas.defaults, ...overrides }, overrides, inFlight, storedBytes };
}

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
    route({
      method: 'GET',
      url: '/v1/tenants',
      operationId: 'listTenants',
      summary: 'The tenants, oldest first (admin key only)',
      tag: 'tenants',
      auth: 'server-admin',
      query: TenantListQuerySchema,
      responses: { 200: { description: 'A page of tenants and how many there are', component: 'TenantList' } },
      handler: async ({ query }) => deps.tenants.list(query),
    }),
    route({
      method: 'GET',
      url: '/v1/quotas',
      operationId: 'getOwnQuotas',
      summary: "The caller's tenant quotas and its checks in flight",
      tag: 'tenants',
      auth: 'check',
      responses: { 200: { description: 'Quotas', component: 'QuotasView' } },
      handler: async ({ caller }) => quotasView(deps, caller.tenant),
    }),
    route({
      method: 'GET',
      url: '/v1/tenants/:id/quotas',
      operationId: 'getTenantQuotas',
      summary: "A tenant's quotas (server admin key)",
      tag: 'tenants',
      auth: 'server-admin',
      params: TenantParamsSchema,
      responses: { 200: { description: 'Quotas', component: 'QuotasView' }, 404: { description: 'Unknown tenant' } },
      handler: async ({ params }) => {
        if (!(await deps.tenants.exists(params.id))) throw new NotFoundError('tenant', params.id);
        return quotasView(deps, params.id);
      },
    }),
    route({
      method: 'PUT',
      url: '/v1/tenants/:id/quotas',
      operationId: 'putTenantQuotas',
      summary: "Set a tenant's quota overrides (server admin key)",
      description: 'Replaces the overrides: quotas left out take the configured defaults (`GUARDAGENT_QUOTA_*`).',
      tag: 'tenants',
      auth: 'server-admin',
      params: TenantParamsSchema,
      body: { component: 'QuotaOverrides', schema: QuotaOverridesBodySchema },
      responses: { 200: { description: 'The quotas now in force', component: 'QuotasView' }, 404: { description: 'Unknown tenant' } },
      handler: async ({ params, body }) => {
        if (!(await deps.tenants.exists(params.id))) throw new NotFoundError('tenant', params.id);
        await deps.shardOf(params.id).quotas.setOverrides(params.id, body);
        return quotasView(deps, params.id);
      },
    }),
  ];
}
