import { CheckTimeoutError, NotFoundError, ValidationError } from '@guardagent/errors';
import { CompileResultSchema, PolicySchema, parseOrThrow } from '@guardagent/schemas';
import { CompileWaitQuerySchema, IdParamsSchema, PolicyParamsSchema, PolicyVersionParamsSchema, idOfShape } from '../api-schemas';
import type { GatewayDeps } from '../gateway-deps';
import { route, type AnyRouteSpec } from '../route-spec';

/** Whether a compile id is this tenant's and still running (its first job sits on executor or memory). */
async function isCompiling(deps: GatewayDeps, tenant: string, id: string): Promise<boolean> {
  for (const stage of ['executor', 'memory'] as const) {
    const job = await deps.shardOf(tenant).queues.queue(stage).getJob(id);
    const state = (job?.data as { state?: { tenant?: unknown; purpose?: unknown } } | undefined)?.state;
    if (state?.tenant === tenant && state.purpose === 'compile') return true;
  }
  return false;
}

export function policyRoutes(deps: GatewayDeps): AnyRouteSpec[] {
  return [
    route({
      method: 'GET',
      url: '/v1/policies',
      operationId: 'listPolicies',
      summary: "The tenant's policies",
      tag: 'policies',
      auth: 'operate',
      responses: { 200: { description: 'Current version of each policy', component: 'PolicyList' } },
      handler: async ({ caller }) => ({
        policies: (await deps.shardOf(caller.tenant).policies.list(caller.tenant)).map(({ policy, digest }) => ({
          id: policy.id,
          version: policy.version,
          digest,
          ...(policy.description ? { description: policy.description } : {}),
        })),
      }),
    }),
    route({
      method: 'PUT',
      url: '/v1/policies/:id',
      operationId: 'putPolicy',
      summary: 'Create or update a policy',
      description: 'The body is a policy (the same document as a policy YAML file, as JSON); its `id` may be left out, else it must equal the path id.',
      tag: 'policies',
      auth: 'operate',
      params: PolicyParamsSchema,
      body: { component: 'Policy' },
      responses: {
        200: { description: 'Registered: this version is now current, or, with `enforcement: shadow`, the shadow beside the current one', component: 'PolicyPutResult' },
        429: { description: "A new policy past the tenant's policy quota; nothing was written" },
      },
      handler: async ({ caller, params, body }) => {
        if (body === null || typeof body !== 'object' || Array.isArray(body)) {
          throw new ValidationError('policy', [{ path: '', message: 'expected a policy object' }]);
        }
        const raw = body as Record<string, unknown>;
        if (raw.id !== undefined && raw.id !== params.id) {
          throw new ValidationError('policy', [{ path: 'id', message: `must equal the id in the path ('${params.id}')` }]);
        }
        const policy = parseOrThrow(PolicySchema, { ...raw, id: params.id }, 'policy');
        await deps.shardOf(caller.tenant).quotas.assertPolicyRoom(caller.tenant, policy.id);
        return deps.transports.use(caller.tenant, (transport) => transport.putPolicy(policy));
      },
    }),
    route({
      method: 'GET',
      url: '/v1/policies/:id',
      operationId: 'getPolicy',
      summary: "A policy's current version and its verified program",
      tag: 'policies',
      auth: 'operate',
      params: PolicyParamsSchema,
      responses: {
        200: { description: 'The policy', component: 'PolicyView' },
        404: { description: 'Unknown policy' },
      },
      handler: async ({ caller, params }) => {
        const registered = await deps.shardOf(caller.tenant).policies.get(caller.tenant, params.id);
        const [program, shadow] = await Promise.all([deps.shardOf(caller.tenant).programs.getPromoted(caller.tenant, registered.programDigest), deps.shardOf(caller.tenant).policies.getShadow(caller.tenant, params.id)]);
        const [shadowProgram, report, shadowReport] = await Promise.all([
          shadow ? deps.shardOf(caller.tenant).programs.getPromoted(caller.tenant, shadow.programDigest) : null,
          program ? deps.shardOf(caller.tenant).programs.getReport(caller.tenant, registered.programDigest) : null,
          shadow ? deps.shardOf(caller.tenant).programs.getReport(caller.tenant, shadow.programDigest) : null,
        ]);
        return {
          policy: registered.policy,
          digest: registered.digest,
          programDigest: registered.programDigest,
          program: program
            ? { source: program.source, promotedAt: program.promotedAt, passedCount: program.report.passedCount, total: program.report.total, replay: report?.replay ?? null }
            : null,
          shadow: shadow ? { version: shadow.policy.version, digest: shadow.digest, programDigest: shadow.programDigest, programPromoted: shadowProgram !== null, replay: shadowReport?.replay ?? null } : null,
        };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/policies/:id/versions',
      operationId: 'listPolicyVersions',
      summary: 'The versions put under a policy id, newest first',
      description: 'The last 100 put (each stored version persists; fetch one by digest for a diff). `current` and `shadow` mark the versions in force.',
      tag: 'policies',
      auth: 'operate',
      params: PolicyParamsSchema,
      responses: { 200: { description: 'Versions', component: 'PolicyVersionList' }, 404: { description: 'Unknown policy' } },
      handler: async ({ caller, params }) => {
        const versions = await deps.shardOf(caller.tenant).policies.versions(caller.tenant, params.id);
        if (versions.length === 0) throw new NotFoundError('policy', params.id);
        return { versions };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/policies/:id/versions/:digest',
      operationId: 'getPolicyVersion',
      summary: 'One version of a policy id, by digest (or a prefix of 8 hex digits or more), with its verified program',
      tag: 'policies',
      auth: 'operate',
      params: PolicyVersionParamsSchema,
      responses: { 200: { description: 'The version', component: 'PolicyVersionView' }, 404: { description: 'Not a version of this policy id' } },
      handler: async ({ caller, params }) => {
        const registered = await deps.shardOf(caller.tenant).policies.version(caller.tenant, params.id, params.digest);
        const program = await deps.shardOf(caller.tenant).programs.getPromoted(caller.tenant, registered.programDigest);
        return {
          policy: registered.policy,
          digest: registered.digest,
          programDigest: registered.programDigest,
          program: program
            ? { code: program.code, source: program.source, promotedAt: program.promotedAt, passedCount: program.report.passedCount, total: program.report.total }
            : null,
        };
      },
    }),
    route({
      method: 'DELETE',
      url: '/v1/policies/:id',
      operationId: 'deletePolicy',
      summary: 'Remove a policy id (checks already queued still finish)',
      tag: 'policies',
      auth: 'operate',
      params: PolicyParamsSchema,
      responses: { 204: { description: 'Removed' }, 404: { description: 'Unknown policy' } },
      handler: async ({ caller, params, reply }) => {
        if (!(await deps.shardOf(caller.tenant).policies.delete(caller.tenant, params.id))) throw new NotFoundError('policy', params.id);
        return reply.code(204).send();
      },
    }),
    route({
      method: 'POST',
      url: '/v1/policies/:id/compile',
      operationId: 'compilePolicy',
      summary: "Compile and verify the policy's guard program",
      description:
        'A supplied `program` is verified against the labelled `examples`; otherwise the LLM writes one (needs an LLM). ' +
        'A program that passes is promoted: checks then run it without any LLM call. Waits up to `wait` ms (default 60 s), ' +
        'else 202 with the compile id to read at GET /v1/compiles/{id}. A program that fails verification is a 200 with `status: failed`.',
      tag: 'policies',
      auth: 'operate',
      params: PolicyParamsSchema,
      query: CompileWaitQuerySchema,
      responses: {
        200: { description: 'The compile result', component: 'CompileResult' },
        202: { description: 'Still compiling', component: 'Accepted' },
        404: { description: 'Unknown policy' },
      },
      handler: async ({ caller, params, query, reply }) => {
        await deps.shardOf(caller.tenant).policies.get(caller.tenant, params.id);
        const shadow = query.shadow ? await deps.shardOf(caller.tenant).policies.getShadow(caller.tenant, params.id) : null;
        if (query.shadow && !shadow) throw new NotFoundError('shadow version of policy', params.id);
        return deps.transports.use(caller.tenant, async (transport) => {
          try {
            return await transport.compile(shadow ? shadow.policy : params.id, { timeoutMs: Math.max(1, query.wait) });
          } catch (error) {
            if (!(error instanceof CheckTimeoutError)) throw error;
            return reply
              .code(202)
              .header('location', `/v1/compiles/${encodeURIComponent(error.jobId)}`)
              .send({ id: error.jobId, status: 'compiling' });
          }
        });
      },
    }),
    route({
      method: 'GET',
      url: '/v1/compiles/:id',
      operationId: 'getCompile',
      summary: "A compile's result",
      tag: 'policies',
      auth: 'operate',
      params: IdParamsSchema,
      responses: {
        200: { description: 'The compile result', component: 'CompileResult' },
        202: { description: 'Still compiling', component: 'Accepted' },
        404: { description: 'Unknown compile id' },
      },
      handler: async ({ caller, params, reply }) => {
        const raw = await deps.shardOf(caller.tenant).results.getCompileResult(caller.tenant, idOfShape('compile', params.id));
        if (raw) return CompileResultSchema.parse(raw);
        if (await isCompiling(deps, caller.tenant, params.id)) return reply.code(202).send({ id: params.id, status: 'compiling' });
        throw new NotFoundError('compile', params.id);
      },
    }),
  ];
}
