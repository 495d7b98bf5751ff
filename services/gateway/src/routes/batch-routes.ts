import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { NotFoundError, ValidationError } from '@guardagent/errors';
import { GuardJobSchema, parseOrThrow, type GuardJob } from '@guardagent/schemas';
import { BatchResultsQuerySchema, IdParamsSchema, idOfShape } from '../api-schemas';
import { bulkChunkLimit } from '@guardagent/quotas';
import { PayloadTooLargeError, RequestTimeoutError, UnsupportedMediaTypeError } from '../gateway-errors';
import type { GatewayDeps } from '../gateway-deps';
import { chunksInTime } from '../body-deadline';
import { readJsonLines, readText } from '../json-lines';
import { requireScopeForPolicy } from '@guardagent/api-keys';
import { route, type AnyRouteSpec } from '../route-spec';

const NDJSON_TYPES = ['application/x-ndjson', 'application/ndjson', 'application/jsonl', 'application/jsonlines'];
const RESULT_CHUNK = 500;

/** A JSON array body, item by item (the array itself was bounded by the byte limit). */
async function* arrayItems(text: string): AsyncGenerator<{ index: number; value: unknown }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ValidationError('batch body', [{ path: '', message: `not valid JSON: ${(error as Error).message}` }]);
  }
  if (!Array.isArray(parsed)) {
    throw new ValidationError('batch body', [{ path: '', message: 'expected a JSON array of guard jobs (or NDJSON, one job per line)' }]);
  }
  for (let index = 0; index < parsed.length; index += 1) yield { index, value: parsed[index] };
}

export function batchRoutes(deps: GatewayDeps): AnyRouteSpec[] {
  const { limits } = deps;
  return [
    route({
      method: 'POST',
      url: '/v1/batches',
      operationId: 'createBatch',
      summary: 'Queue many guard jobs',
      description:
        `Up to ${limits.batchMaxJobs.toLocaleString('en')} jobs as NDJSON (\`application/x-ndjson\`, one job per line, read as a ` +
        `stream; up to ${limits.batchBodyBytes >> 20} MiB) or a JSON array (up to ${limits.batchJsonBodyBytes >> 20} MiB). ` +
        `Jobs may not carry an \`idempotencyKey\`. Jobs are validated and queued in chunks of ${limits.batchChunk} as the body arrives: ` +
        'if job N is invalid (400, `error.issues[].path` = `jobs[N]...`) or names an unknown policy (404), the jobs before ' +
        'it stay queued, and the batch (id in the `x-batch-id` header) ends in state `aborted`.',
      tag: 'batches',
      auth: 'check',
      body: {
        mode: 'stream',
        limit: limits.batchBodyBytes,
        content: {
          'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/GuardJob' } } },
          'application/x-ndjson': { schema: { type: 'string', description: 'One GuardJob JSON object per line' } },
        },
      },
      responses: {
        202: { description: 'Queued; follow progress at GET /v1/batches/{id}', component: 'BatchCreated' },
        404: { description: 'A job names an unknown policy' },
        415: { description: 'Neither JSON nor NDJSON' },
      },
      handler: async ({ caller, request, reply }) => {
        const contentType = String(request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        const ndjson = NDJSON_TYPES.includes(contentType);
        if (!ndjson && contentType !== 'application/json') {
          throw new UnsupportedMediaTypeError(contentType || '(none)', ['application/json', 'application/x-ndjson']);
        }
        const id = randomUUID();
        await deps.shardOf(caller.tenant).batches.create(caller.tenant, id);
        reply.header('x-batch-id', id);
        let total = 0;
        try {
          // The body's deadline counts only time spent waiting for its bytes (see chunksInTime).
          const body = chunksInTime(request.raw, { graceMs: limits.bodyTimeoutMs, minBytesPerSecond: limits.minBodyBytesPerSecond });
          const source = ndjson
            ? readJsonLines(body, { maxBytes: limits.batchBodyBytes, maxLineBytes: limits.jsonBodyBytes })
            : arrayItems(await readText(body, { maxBytes: limits.batchJsonBodyBytes }));
          // A chunk is admitted whole against the tenant's quotas, as bulk work: it must fit in half
          // the bucket and half the in-flight room, the other half staying free for the tenant's
          // live checks (see bulkChunkLimit).
          const quotas = await deps.shardOf(caller.tenant).quotas.effective(caller.tenant);
          const chunkSize = Math.min(limits.batchChunk, bulkChunkLimit(quotas));
          // Over its check rate or jobs in flight, the tenant's upload waits (the stream is not
          // read meanwhile, and the body's deadline does not count the wait) instead of failing
          // halfway; after this long, or if the client goes away, it is refused.
          const gone = new AbortController();
          reply.raw.once('close', () => gone.abort(new RequestTimeoutError('the client closed the connection')));
          const admit = (ids: string[], bytes: number) =>
            deps.shardOf(caller.tenant).admission.admitWaiting(caller.tenant, ids, { bulk: true, bytes, maxWaitMs: limits.batchAdmissionWaitMs, signal: gone.signal });
          await deps.transports.use(caller.tenant, async (transport) => {
            let chunk: GuardJob[] = [];
            const flush = async () => {
              if (chunk.length === 0) return;
              // Count before queueing, so `done` can never run ahead of `total`.
              await deps.shardOf(caller.tenant).batches.addQueued(caller.tenant, id, chunk.length);
              try {
                await transport.submitMany(chunk, { batchId: id, admit });
              } catch (error) {
                await deps.shardOf(caller.tenant).batches.addQueued(caller.tenant, id, -chunk.length);
                throw error;
              }
              total += chunk.length;
              chunk = [];
            };
            for await (const { index, value } of source) {
              if (index >= limits.batchMaxJobs) {
                throw new PayloadTooLargeError(`a batch holds at most ${limits.batchMaxJobs} jobs`, { maxJobs: limits.batchMaxJobs });
              }
              const job = parseOrThrow(GuardJobSchema, value, 'guard job', `jobs[${index}]`);
              requireScopeForPolicy(caller.scopes, job.policy, `jobs[${index}].policy`);
              if (job.idempotencyKey !== undefined) {
                // A keyed job decided before would not be decided (or counted) again, and the batch would never finish.
                throw new ValidationError('guard job', [
                  { path: `jobs[${index}].idempotencyKey`, message: 'not supported in batches: the batch id is the unit of idempotency' },
                ]);
              }
              chunk.push(job);
              if (chunk.length >= chunkSize) await flush();
            }
            await flush();
          });
          if (total === 0) throw new ValidationError('batch body', [{ path: 'jobs', message: 'a batch needs at least one job' }]);
          await deps.shardOf(caller.tenant).batches.setState(caller.tenant, id, 'submitted');
        } catch (error) {
          reply.header('x-batch-queued', String(total));
          await deps.shardOf(caller.tenant).batches.setState(caller.tenant, id, 'aborted').catch(() => undefined);
          throw error;
        }
        return reply.code(202).header('location', `/v1/batches/${id}`).send({ id, total });
      },
    }),
    route({
      method: 'GET',
      url: '/v1/batches/:id',
      operationId: 'getBatch',
      summary: "A batch's progress",
      tag: 'batches',
      auth: 'check',
      params: IdParamsSchema,
      responses: {
        200: { description: 'Counts so far', component: 'BatchStatus' },
        404: { description: 'Unknown batch id' },
      },
      handler: async ({ caller, params }) => {
        const status = await deps.shardOf(caller.tenant).batches.get(caller.tenant, idOfShape('batch', params.id));
        if (!status) throw new NotFoundError('batch', params.id);
        return status;
      },
    }),
    route({
      method: 'GET',
      url: '/v1/batches/:id/results',
      operationId: 'getBatchResults',
      summary: "A batch's decisions so far, as NDJSON",
      description: 'One Decision per line, in the order they were made; `from` skips the ones already read.',
      tag: 'batches',
      auth: 'check',
      params: IdParamsSchema,
      query: BatchResultsQuerySchema,
      responses: {
        200: { description: 'Decisions, one JSON object per line', contentType: 'application/x-ndjson' },
        404: { description: 'Unknown batch id' },
      },
      handler: async ({ caller, params, query, reply }) => {
        const status = await deps.shardOf(caller.tenant).batches.get(caller.tenant, idOfShape('batch', params.id));
        if (!status) throw new NotFoundError('batch', params.id);
        const { tenant } = caller;
        async function* lines(): AsyncGenerator<string> {
          let start = query.from;
          for (;;) {
            const ids = await deps.shardOf(tenant).batches.resultIds(tenant, params.id, start, RESULT_CHUNK);
            if (ids.length === 0) return;
            const decisions = await deps.shardOf(tenant).results.getDecisions(tenant, ids);
            let text = '';
            for (const decision of decisions) if (decision) text += `${JSON.stringify(decision)}\n`;
            if (text) yield text;
            start += ids.length;
            if (ids.length < RESULT_CHUNK) return;
          }
        }
        return reply.type('application/x-ndjson; charset=utf-8').send(Readable.from(lines()));
      },
    }),
  ];
}
