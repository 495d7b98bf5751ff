import { Readable } from 'node:stream';
import { z } from 'zod';
import { DecisionLog } from '@guardagent/queue';
import { PolicyIdSchema, parseSince } from '@guardagent/schemas';
import { sinceOrDate } from '../api-schemas';
import type { GatewayDeps } from '../gateway-deps';
import { route, type AnyRouteSpec } from '../route-spec';

const DecisionLogQuerySchema = z.object({
  policy: PolicyIdSchema.optional().describe("Only this policy's decisions"),
  since: sinceOrDate('since').describe('From this time: a duration back (30m, 24h, 7d) or an ISO date'),
  until: sinceOrDate('until').describe('Before this time: a duration back or an ISO date'),
});

/** Entries the log streams per page (one Redis round trip each). */
const PAGE = 500;

export function decisionLogRoutes(deps: GatewayDeps): AnyRouteSpec[] {
  return [
    route({
      method: 'GET',
      url: '/v1/decision-log',
      operationId: 'exportDecisionLog',
      summary: "The tenant's recorded decisions, as NDJSON",
      description:
        'Decisions of the policies that record them (`decisionLog: true`, or `GUARDAGENT_DECISION_LOG=all`), oldest first, ' +
        'each with its job as the guard saw it (redacted text, no approval token): the input of a replay or a batch.',
      tag: 'policies',
      auth: 'operate',
      query: DecisionLogQuerySchema,
      responses: {
        200: { description: 'One DecisionLogEntry per line', contentType: 'application/x-ndjson' },
      },
      handler: async ({ caller, query, reply }) => {
        const now = Date.now();
        const log = new DecisionLog(deps.redis, deps.shardOf(caller.tenant).prefix);
        const entries = log.entries(caller.tenant, {
          pageSize: PAGE,
          ...(query.policy ? { policyId: query.policy } : {}),
          ...(query.since ? { sinceMs: parseSince(query.since, now)! } : {}),
          ...(query.until ? { untilMs: parseSince(query.until, now)! } : {}),
        });
        async function* lines(): AsyncGenerator<string> {
          for await (const entry of entries) yield `${JSON.stringify(entry)}\n`;
        }
        return reply.type('application/x-ndjson; charset=utf-8').send(Readable.from(lines()));
      },
    }),
  ];
}
