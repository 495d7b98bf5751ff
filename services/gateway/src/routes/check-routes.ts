import { CheckTimeoutError, DecisionLostError, NotFoundError, UnavailableError, errorMessage } from '@guardagent/errors';
import type { Job } from 'bullmq';
import { checksCarried, chunkJobOfCheck } from '@guardagent/queue';
import { answerFailedJob, storedADecision } from '@guardagent/pipeline/answers';
import { GuardJobSchema, type GuardJob } from '@guardagent/schemas';
import { CheckWaitQuerySchema, FeedbackBodySchema, IdParamsSchema, idOfShape } from '../api-schemas';
import { FeedbackNotApplicableError } from '../gateway-errors';
import type { GatewayDeps } from '../gateway-deps';
import { requireScopeForPolicy } from '@guardagent/api-keys';
import { route, type AnyRouteSpec } from '../route-spec';

/**
 * Where a check with no stored decision stands: still on its way through the stages, failed for
 * good with no answer written (BullMQ gave up, and the fail-closed answer's write was refused or
 * its process died), decided with its decision since lost, or unknown to this tenant.
 */
async function checkInQueue(deps: GatewayDeps, tenant: string, id: string): Promise<{ job: Job; failed: boolean; decisionLost: boolean } | null> {
  const job = await executorJobOf(deps, tenant, id);
  if (!job) return null;
  // Only a job that has finished (finishedOn, from the hash just read) can have failed for good;
  // asking its state costs a round trip, so a check still running is answered without one.
  if (job.finishedOn === undefined) return { job, failed: false, decisionLost: false };
  const finished = await job.getState();
  // The executor stores a decision before it completes the job that made it. Completed without
  // one means Redis lost the decision after it was written: an AOF everysec crash or a failover
  // rolled Redis back between the two writes.
  return { job, failed: finished === 'failed', decisionLost: finished === 'completed' && storedADecision(job, id) };
}

/** The executor job that carries a tenant's check: its own `check` job, or the chunk job recorded for it. */
async function executorJobOf(deps: GatewayDeps, tenant: string, id: string): Promise<Job | null> {
  const { queues } = deps.shardOf(tenant);
  const queue = queues.queue('executor');
  const own = await queue.getJob(id);
  const chunkId = own ? null : await chunkJobOfCheck(deps.redis, queues.prefix, tenant, id);
  const job = own ?? (chunkId ? await queue.getJob(chunkId) : undefined);
  if (!job) return null;
  const carries = checksCarried(job).some((check) => {
    const state = check as { tenant?: unknown; jobId?: unknown; purpose?: unknown } | null;
    return state?.tenant === tenant && state.jobId === id && state.purpose === 'check';
  });
  return carries ? job : null;
}

/**
 * Whether a memory error says the check has no archived case ("candidate 'id' not found"): a
 * line with "candidate " and, after it, "not found", in any case. The first "candidate " of a line
 * decides; `/candidate .*not found/i` rescanned the line from every one of them (quadratic).
 */
function saysCandidateNotFound(message: string): boolean {
  return message.split(/[\n\r\u2028\u2029]/).some((line) => {
    const lower = line.toLowerCase();
    const candidate = lower.indexOf('candidate ');
    return candidate >= 0 && lower.includes('not found', candidate + 'candidate '.length);
  });
}

export function checkRoutes(deps: GatewayDeps): AnyRouteSpec[] {
  return [
    route({
      method: 'POST',
      url: '/v1/checks',
      operationId: 'createCheck',
      summary: 'Check one proposed action and wait for the decision',
      description:
        'Queues the job and waits up to `wait` ms (default 10 s) for the decision. A decision is 200 whatever it says ' +
        '(allow, deny or pending); no decision in time is 202 with the id, to read later with GET /v1/checks/{id}.',
      tag: 'checks',
      auth: 'check',
      query: CheckWaitQuerySchema,
      body: { component: 'GuardJob', schema: GuardJobSchema },
      responses: {
        200: { description: 'The decision', component: 'Decision' },
        202: { description: 'Queued; no decision within `wait`', component: 'Accepted' },
        404: { description: 'Unknown policy id' },
        429: { description: "Over the tenant's check rate or jobs in flight (`Retry-After` says when to retry); nothing was queued" },
      },
      handler: async ({ caller, query, body, reply }) =>
        deps.transports.use(caller.tenant, async (transport) => {
          const job = body as GuardJob;
          requireScopeForPolicy(caller.scopes, job.policy, 'policy');
          const admit = (ids: string[], bytes: number) => deps.shardOf(caller.tenant).admission.admit(caller.tenant, ids, { bytes });
          if (query.wait === 0) {
            const { id } = await transport.submit(job, { admit });
            return reply.code(202).header('location', `/v1/checks/${encodeURIComponent(id)}`).send({ id, status: 'queued' });
          }
          try {
            const decision = await transport.check(job, { timeoutMs: query.wait, admit });
            deps.metrics.observeDecision(decision);
            return decision;
          } catch (error) {
            if (!(error instanceof CheckTimeoutError)) throw error;
            return reply
              .code(202)
              .header('location', `/v1/checks/${encodeURIComponent(error.jobId)}`)
              .send({ id: error.jobId, status: 'running' });
          }
        }),
    }),
    route({
      method: 'GET',
      url: '/v1/checks/:id',
      operationId: 'getCheck',
      summary: "A check's decision",
      tag: 'checks',
      auth: 'check',
      params: IdParamsSchema,
      responses: {
        200: { description: 'The decision', component: 'Decision' },
        202: { description: 'Still running', component: 'Accepted' },
        503: { description: 'The check failed for good and its fail-closed answer could not be stored (Redis refused the write); retry' },
        404: { description: 'Unknown id, expired, or another tenant\'s (`NOT_FOUND`); or decided with its decision since lost in a Redis crash or failover (`DECISION_LOST`)' },
      },
      handler: async ({ caller, params: { id }, reply }) => {
        const params = { id: idOfShape('check', id) };
        const decision = await deps.shardOf(caller.tenant).results.getDecision(caller.tenant, params.id);
        if (decision) {
          deps.metrics.observeDecision(decision);
          return decision;
        }
        const queued = await checkInQueue(deps, caller.tenant, params.id);
        if (!queued) throw new NotFoundError('check', params.id);
        if (queued.decisionLost) {
          // The first read may have come just before the decision was stored and the job completed.
          // A decision is stored before its job completes, so a read after seeing the job completed
          // tells a late decision from a lost one.
          const late = await deps.shardOf(caller.tenant).results.getDecision(caller.tenant, params.id);
          if (!late) throw new DecisionLostError(params.id);
          deps.metrics.observeDecision(late);
          return late;
        }
        if (!queued.failed) return reply.code(202).send({ id: params.id, status: 'running' });
        // Failed for good and never answered: answer it now, fail-closed, as the sweeper would
        // (first answer wins), rather than calling it running until the next sweep.
        const shard = deps.shardOf(caller.tenant);
        await answerFailedJob(
          { results: shard.results, queues: shard.queues, programs: shard.programs, now: Date.now, logger: deps.logger, decisionLog: deps.config.decisionLog.record },
          'executor',
          queued.job,
          queued.job.failedReason || 'failed',
        );
        const answered = await deps.shardOf(caller.tenant).results.getDecision(caller.tenant, params.id);
        if (!answered) throw new UnavailableError(`check ${params.id} failed for good and its fail-closed answer could not be stored; try again`);
        deps.metrics.observeDecision(answered);
        return answered;
      },
    }),
    route({
      method: 'POST',
      url: '/v1/checks/:id/feedback',
      operationId: 'createCheckFeedback',
      summary: 'Say whether a decision was right',
      description:
        'The right label (1 = should be denied, 0 = allowed) becomes a labelled example of the policy, and a per-request ' +
        'case the guard got right becomes a demonstration. Only per-request decisions (made by LLM-written code) have a ' +
        'case in memory; for a rails or compiled-program decision send `job` (the job as submitted), else 409.',
      tag: 'checks',
      auth: 'feedback',
      params: IdParamsSchema,
      body: { component: 'Feedback', schema: FeedbackBodySchema },
      responses: {
        200: { description: 'Recorded', component: 'FeedbackResult' },
        404: { description: 'Unknown check id' },
        409: { description: 'Nothing in memory to learn from for this decision' },
      },
      handler: async ({ caller, params: { id }, body }) => {
        const params = { id: idOfShape('check', id) };
        const decision = await deps.shardOf(caller.tenant).results.getDecision(caller.tenant, params.id);
        if (!decision) throw new NotFoundError('check', params.id);
        if (decision.mode !== 'per-request' && !body.job) {
          const by = decision.layer === 'rails' ? 'the rails' : decision.mode === 'compiled' ? 'a compiled program' : 'no guard code (guard error)';
          throw new FeedbackNotApplicableError(params.id, `it was decided by ${by}; send the job (input, output, ...) with the label, or add a labelled example to the policy`);
        }
        return deps.transports.use(caller.tenant, async (transport) => {
          try {
            return await transport.feedback(params.id, body);
          } catch (error) {
            const message = errorMessage(error);
            if (saysCandidateNotFound(message)) {
              throw new FeedbackNotApplicableError(params.id, 'memory has no archived case for it (cases expire after 7 days)');
            }
            if (/timed out/i.test(message)) throw new UnavailableError('no memory worker recorded the feedback within 30 s');
            throw error;
          }
        });
      },
    }),
  ];
}
