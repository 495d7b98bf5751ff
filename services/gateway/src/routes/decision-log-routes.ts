import { Readable } from 'node:stream';
import { z } from 'zod';
import { DecisionLog } from '@guardagent/queue';
import { PolicyIdSchema, parseSince, type DecisionLogEntry } from '@guardagent/schemas';
import { sinceOrDate } from '../api-schemas';
import type { GatewayDeps } from '../gateway-deps';
import { route, type AnyRouteSpec } from '../route-spec';

const DecisionLogQuerySchema = z.object({
  policy: PolicyIdSchema.optional().describe("Only this policy's decisions"),
  decision: z.enum(['allow', 'deny', 'pending']).optional().describe('Only decisions with this outcome'),
  status: z.enum(['ok', 'guard_error']).optional().describe('Only `ok` decisions, or only guard errors'),
  rule: z.string().min(1).max(256).optional().describe('Only decisions where this rule fired (a rule id as in `rules`, e.g. tools.issue_refund.approval.over-50)'),
  subject: z.string().min(1).max(256).optional().describe("Only decisions on this subject's calls (the job's subject.id)"),
  tool: z.string().min(1).max(256).optional().describe('Only decisions on calls of this tool (the job\'s action.tool)'),
  limit: z.coerce.number().int().min(1).max(10_000).optional().describe('At most this many entries: the newest that match, still oldest first'),
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
        'each with its job as the guard saw it (redacted text, no approval token): the input of a replay or a batch. ' +
        'Filter by policy, outcome, status, rule, subject, tool and time; `limit` keeps the newest that match.',
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
        const matches = (entry: DecisionLogEntry): boolean =>
          (query.decision === undefined || entry.decision === query.decision) &&
          (query.status === undefined || entry.status === query.status) &&
          (query.rule === undefined || entry.rules.includes(query.rule)) &&
          (query.subject === undefined || entry.job?.subject?.id === query.subject) &&
          (query.tool === undefined || (entry.job?.action?.kind === 'tool_call' && entry.job.action.tool === query.tool));
        async function* lines(): AsyncGenerator<string> {
          if (query.limit === undefined) {
            for await (const entry of entries) if (matches(entry)) yield `${JSON.stringify(entry)}\n`;
            return;
          }
          // The newest `limit` that match: a ring of that many, read through to the end of the window.
          const newest: string[] = [];
          for await (const entry of entries) {
            if (!matches(entry)) continue;
            newest.push(JSON.stringify(entry));
            if (newest.length > query.limit) newest.shift();
          }
          for (const line of newest) yield `${line}\n`;
        }
        return reply.type('application/x-ndjson; charset=utf-8').send(Readable.from(lines()));
      },
    }),
  ];
}
