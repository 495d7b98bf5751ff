import { NotFoundError } from '@guardagent/errors';
import type { Demonstration } from '@guardagent/schemas';
import { DemonstrationBodySchema, DemonstrationParamsSchema, PolicyParamsSchema } from '../api-schemas';
import type { GatewayDeps } from '../gateway-deps';
import { route, type AnyRouteSpec } from '../route-spec';

/** Demonstrations in memory (paper §4.2): the worked cases retrieval hands the LLM for a policy. */
export function demonstrationRoutes(deps: GatewayDeps): AnyRouteSpec[] {
  const requirePolicy = (tenant: string, id: string) => deps.shardOf(tenant).policies.get(tenant, id);
  return [
    route({
      method: 'POST',
      url: '/v1/policies/:id/demonstrations',
      operationId: 'addDemonstrations',
      summary: 'Add demonstrations (one, or an array)',
      tag: 'memory',
      auth: 'operate',
      params: PolicyParamsSchema,
      body: { component: 'DemonstrationBody', schema: DemonstrationBodySchema },
      responses: {
        201: { description: 'Stored (same content as a stored one is left as is)', component: 'DemonstrationsAdded' },
        404: { description: 'Unknown policy' },
      },
      handler: async ({ caller, params, body, reply }) => {
        await requirePolicy(caller.tenant, params.id);
        const demos: Demonstration[] = Array.isArray(body) ? body : [body];
        const seeded = await deps.shardOf(caller.tenant).memory.seed(caller.tenant, params.id, demos, { source: 'api' });
        return reply.code(201).send({ ids: seeded.ids, added: seeded.added + seeded.updated, unchanged: seeded.unchanged });
      },
    }),
    route({
      method: 'GET',
      url: '/v1/policies/:id/demonstrations',
      operationId: 'listDemonstrations',
      summary: "A policy's demonstrations, oldest first",
      tag: 'memory',
      auth: 'operate',
      params: PolicyParamsSchema,
      responses: { 200: { description: 'Demonstrations', component: 'DemonstrationList' }, 404: { description: 'Unknown policy' } },
      handler: async ({ caller, params }) => {
        await requirePolicy(caller.tenant, params.id);
        return { demonstrations: await deps.shardOf(caller.tenant).memory.list(caller.tenant, params.id) };
      },
    }),
    route({
      method: 'DELETE',
      url: '/v1/policies/:id/demonstrations',
      operationId: 'clearDemonstrations',
      summary: "Remove all of a policy's demonstrations",
      tag: 'memory',
      auth: 'operate',
      params: PolicyParamsSchema,
      responses: { 204: { description: 'Removed' }, 404: { description: 'Unknown policy' } },
      handler: async ({ caller, params, reply }) => {
        await requirePolicy(caller.tenant, params.id);
        await deps.shardOf(caller.tenant).memory.seed(caller.tenant, params.id, [], { replace: true, source: 'api' });
        return reply.code(204).send();
      },
    }),
    route({
      method: 'DELETE',
      url: '/v1/policies/:id/demonstrations/:demoId',
      operationId: 'deleteDemonstration',
      summary: 'Remove one demonstration',
      tag: 'memory',
      auth: 'operate',
      params: DemonstrationParamsSchema,
      responses: { 204: { description: 'Removed' }, 404: { description: 'Unknown policy or demonstration' } },
      handler: async ({ caller, params, reply }) => {
        await requirePolicy(caller.tenant, params.id);
        if (!(await deps.shardOf(caller.tenant).memory.delete(caller.tenant, params.id, params.demoId))) throw new NotFoundError('demonstration', params.demoId);
        return reply.code(204).send();
      },
    }),
  ];
}
