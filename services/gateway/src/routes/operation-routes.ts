import type { GatewayDeps } from '../gateway-deps';
import { checkReadiness } from '../readiness';
import { route, type AnyRouteSpec } from '../route-spec';

export function operationRoutes(deps: GatewayDeps, document: () => Record<string, unknown>): AnyRouteSpec[] {
  return [
    route({
      method: 'GET',
      url: '/healthz',
      operationId: 'health',
      summary: 'Liveness: the gateway process answers',
      tag: 'operations',
      auth: 'none',
      responses: { 200: { description: 'Alive', component: 'Health' } },
      handler: async () => ({ status: 'ok' }),
    }),
    route({
      method: 'GET',
      url: '/readyz',
      operationId: 'ready',
      summary: 'Readiness: Redis answers, every stage has a live worker, and every executor has a ready sandbox worker',
      tag: 'operations',
      auth: 'none',
      responses: { 200: { description: 'Ready', component: 'Ready' }, 503: { description: 'Not ready', component: 'Ready' } },
      handler: async ({ reply }) => {
        const readiness = await checkReadiness(deps.redis, deps.shards.map((shard) => shard.queues), deps.config.prefix);
        return reply.code(readiness.ready ? 200 : 503).send(readiness);
      },
    }),
    route({
      method: 'GET',
      url: '/metrics',
      operationId: 'metrics',
      summary: 'Prometheus metrics',
      description:
        'guardagent_queue_jobs{stage,state}, guardagent_decisions_total{tenant,policy,decision,status} (all processes), ' +
        'guardagent_stage_duration_seconds{stage} and guardagent_llm_tokens_total{kind} (decisions seen by this gateway), ' +
        'guardagent_sandbox_worker_restarts_total{reason}, guardagent_sandbox_quarantines_total{tenant,scope}, ' +
        'guardagent_sandbox_quarantined{tenant,scope}, guardagent_sandbox_quarantined_runs_total, guardagent_sandbox_workers{state}, ' +
        'guardagent_sandbox_unserved_seconds and guardagent_sandbox_wait_seconds{tenant} (every executor\'s sandbox pool), ' +
        'guardagent_http_requests_total, and process metrics. The metrics key (GUARDAGENT_METRICS_KEY, which reads this and nothing else) ' +
        'or the admin key: the labels name every tenant and policy (Prometheus: `authorization: { credentials_file: <the metrics key> }` ' +
        'in the scrape config, or a PodMonitor with the key from a Secret; infra/k8s).',
      tag: 'operations',
      auth: 'metrics',
      responses: { 200: { description: 'Prometheus text format', contentType: 'text/plain' } },
      handler: async ({ reply }) => {
        const { contentType, body } = await deps.metrics.render();
        return reply.type(contentType).send(body);
      },
    }),
    route({
      method: 'GET',
      url: '/openapi.json',
      operationId: 'openapi',
      summary: 'This OpenAPI document',
      tag: 'operations',
      auth: 'none',
      responses: { 200: { description: 'OpenAPI 3.1' } },
      handler: async () => document(),
    }),
  ];
}
