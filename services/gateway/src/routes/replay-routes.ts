import { randomUUID } from 'node:crypto';
import { NotFoundError, ValidationError } from '@guardagent/errors';
import type { RegisteredPolicy } from '@guardagent/registry';
import { parseSince } from '@guardagent/schemas';
import { IdParamsSchema, PolicyParamsSchema, ReplayRequestSchema, idOfShape } from '../api-schemas';
import type { GatewayDeps } from '../gateway-deps';
import type { ReplayRecord } from '../replay-store';
import { route, type AnyRouteSpec } from '../route-spec';

/** The version a replay request names, or NotFoundError. */
async function candidateOf(deps: GatewayDeps, tenant: string, policyId: string, version: string): Promise<{ named: ReplayRecord['candidate']['named']; registered: RegisteredPolicy }> {
  if (version === 'current') return { named: 'current', registered: await deps.shardOf(tenant).policies.get(tenant, policyId) };
  if (version === 'shadow') {
    await deps.shardOf(tenant).policies.get(tenant, policyId);
    const shadow = await deps.shardOf(tenant).policies.getShadow(tenant, policyId);
    if (!shadow) throw new NotFoundError('shadow version of policy', policyId);
    return { named: 'shadow', registered: shadow };
  }
  const registered = await deps.shardOf(tenant).policies.getByDigest(tenant, version);
  // A digest of another policy would replay this policy's traffic against unrelated rules.
  if (registered.policy.id !== policyId) throw new NotFoundError(`version of policy '${policyId}'`, version);
  return { named: 'digest', registered };
}

/**
 * Refuse a replay that would not test the version's own program: without one, a version with guard
 * requests decides each check through the LLM (auto, per-request: a bill per recorded check, only
 * with `llm: true`) or not at all (compiled: every check NO_COMPILED_PROGRAM).
 */
async function assertReplayable(deps: GatewayDeps, tenant: string, named: ReplayRecord['candidate']['named'], registered: RegisteredPolicy, llm: boolean): Promise<void> {
  const { policy } = registered;
  if (!policy.requests?.trim()) return; // rails only: the rails decide every check
  if (policy.mode !== 'per-request' && (await deps.shardOf(tenant).programs.getPromoted(tenant, registered.programDigest))) return;
  const compile = `POST /v1/policies/${policy.id}/compile${named === 'shadow' ? '?shadow=true' : ''}`;
  if (policy.mode === 'compiled') {
    throw new ValidationError('replay', [{ path: 'version', message: `version '${policy.version}' has no verified program, so every replayed check would end NO_COMPILED_PROGRAM: compile it first (${compile})` }]);
  }
  if (!llm) {
    const how = policy.mode === 'per-request' ? 'runs per request' : 'has no verified program';
    throw new ValidationError('replay', [{ path: 'llm', message: `version '${policy.version}' ${how}, so each replayed check would call the LLM: compile it first (${compile}), or pass "llm": true` }]);
  }
}

export function replayRoutes(deps: GatewayDeps): AnyRouteSpec[] {
  return [
    route({
      method: 'POST',
      url: '/v1/policies/:id/replays',
      operationId: 'startReplay',
      summary: "Re-decide the policy's recorded traffic with another version, and diff",
      description:
        "Re-decides the tenant's recorded decisions of this policy (its decision log, oldest first, up to `limit`) with the " +
        'named version, through the normal executors, and compares: flips (allow→deny, deny→allow, to or from pending), ' +
        'newly erroring checks, changed reasons or rules, by rule and by role, with examples. Runs in the background of ' +
        'this gateway, at most 1,000 checks queued at a time and one replay per tenant; follow it at GET /v1/replays/{id}. ' +
        "Replayed checks are not recorded, count rate limits in the replay's own windows and issue no approval token. " +
        'A version with guard requests and no verified program is refused (400): in `compiled` mode none of its checks could ' +
        'be decided; otherwise each would call the LLM, which `llm: true` allows. ' +
        "When done, the diff's summary is attached to the version's program verification report (GET /v1/policies/{id}).",
      tag: 'policies',
      auth: 'operate',
      params: PolicyParamsSchema,
      body: { component: 'ReplayRequest', schema: ReplayRequestSchema },
      responses: {
        202: { description: 'Started; follow it at GET /v1/replays/{id}', component: 'Replay' },
        404: { description: 'Unknown policy, or it has no such version' },
        409: { description: 'A replay of this tenant is already running on this gateway' },
      },
      handler: async ({ caller, params, body, reply }) => {
        const now = Date.now();
        const sinceMs = body.since === undefined ? undefined : parseSince(body.since, now)!;
        const untilMs = body.until === undefined ? now : parseSince(body.until, now)!;
        if (sinceMs !== undefined && sinceMs >= untilMs) throw new ValidationError('replay', [{ path: 'until', message: 'must be after since' }]);
        const { named, registered } = await candidateOf(deps, caller.tenant, params.id, body.version);
        await assertReplayable(deps, caller.tenant, named, registered, body.llm);
        const at = new Date(now).toISOString();
        const record: ReplayRecord = {
          id: randomUUID(),
          policyId: params.id,
          candidate: { named, version: registered.policy.version, digest: registered.digest, programDigest: registered.programDigest },
          since: sinceMs === undefined ? null : new Date(sinceMs).toISOString(),
          until: new Date(untilMs).toISOString(),
          limit: body.limit ?? deps.limits.batchMaxJobs,
          state: 'running',
          progress: { read: 0, submitted: 0, decided: 0, truncated: false },
          diff: null,
          error: null,
          createdAt: at,
          updatedAt: at,
          finishedAt: null,
        };
        await deps.replays.start(caller.tenant, { record, candidate: registered, ...(sinceMs !== undefined ? { sinceMs } : {}), untilMs });
        return reply.code(202).header('location', `/v1/replays/${record.id}`).send(record);
      },
    }),
    route({
      method: 'GET',
      url: '/v1/policies/:id/replays',
      operationId: 'listReplays',
      summary: "The policy's replays, newest first",
      tag: 'policies',
      auth: 'operate',
      params: PolicyParamsSchema,
      responses: { 200: { description: 'Up to 50 replays of the last 7 days', component: 'ReplayList' } },
      handler: async ({ caller, params }) => ({ replays: await deps.shardOf(caller.tenant).replayStore.list(caller.tenant, params.id) }),
    }),
    route({
      method: 'GET',
      url: '/v1/replays/:id',
      operationId: 'getReplay',
      summary: "A replay's progress, and its decision diff once done",
      tag: 'policies',
      auth: 'operate',
      params: IdParamsSchema,
      responses: {
        200: { description: 'The replay', component: 'Replay' },
        404: { description: 'Unknown replay id (or another tenant’s)' },
      },
      handler: async ({ caller, params }) => {
        const record = await deps.shardOf(caller.tenant).replayStore.get(caller.tenant, idOfShape('replay', params.id));
        if (!record) throw new NotFoundError('replay', params.id);
        return record;
      },
    }),
  ];
}
