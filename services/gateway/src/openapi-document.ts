import { z } from 'zod';
import { API_COMPONENTS } from './api-schemas';
import type { AnyRouteSpec } from './route-spec';

type JsonSchema = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** components.schemas from the same zod schemas the handlers and workers validate with. */
export function componentSchemas(): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(API_COMPONENTS)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    io: 'input',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, JsonSchema> };
  const out: Record<string, JsonSchema> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    const { $schema: _s, $id: _i, ...rest } = schema;
    out[id] = rest;
  }
  return out;
}

function parameters(schema: z.ZodType | undefined, location: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: location,
      required: location === 'path' || (json.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

const STANDARD_ERRORS: Record<number, string> = {
  400: 'Invalid request: `error.issues` names each invalid field',
  401: 'Missing or wrong API key',
  403: 'The key lacks the scope this operation needs (`error.details.scope`), or only the server admin key may do this',
  404: 'Unknown id (or one belonging to another tenant)',
  408: 'The body did not arrive in time (`REQUEST_TIMEOUT`; 30 s for a JSON body, a streamed batch at 64 KiB/s after a 30 s grace); the connection is closed',
  413: 'Body too large',
  503: 'Redis or the pipeline is unavailable (`UNAVAILABLE`: Redis reconnecting or a Redis Cluster failing over, `details.redis`; `STORE_FULL`); retry after `Retry-After`',
};

/** The OpenAPI 3.1 document of every (non-hidden) route. */
export function openApiDocument(routes: readonly AnyRouteSpec[], info: { version: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of routes) {
    if (spec.hidden) continue;
    const path = spec.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(spec.responses)) {
      responses[status] = {
        description: response.description,
        ...(response.component
          ? { content: { [response.contentType ?? 'application/json']: { schema: ref(response.component) } } }
          : response.contentType
            ? { content: { [response.contentType]: { schema: { type: 'string' } } } }
            : {}),
      };
    }
    const errorStatuses = [
      ...(spec.params || spec.query || spec.body ? [400] : []),
      ...(spec.auth !== 'none' ? [401] : []),
      ...(spec.auth !== 'none' ? [403] : []),
      ...(spec.body ? [408, 413] : []),
      503,
    ];
    for (const status of errorStatuses) {
      responses[String(status)] ??= { description: STANDARD_ERRORS[status], content: { 'application/json': { schema: ref('Error') } } };
    }
    for (const [status, response] of Object.entries(responses)) {
      if (Number(status) >= 400 && !(response as { content?: unknown }).content) {
        (response as Record<string, unknown>).content = { 'application/json': { schema: ref('Error') } };
      }
    }
    paths[path] ??= {};
    paths[path][spec.method.toLowerCase()] = {
      operationId: spec.operationId,
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: [spec.tag],
      ...(spec.auth !== 'none' ? { 'x-required-scope': spec.auth } : {}),
      ...(spec.auth === 'none' ? { security: [] } : {}),
      parameters: [...parameters(spec.params, 'path'), ...parameters(spec.query, 'query')],
      ...(spec.body
        ? {
            requestBody: {
              required: true,
              ...(spec.body.description ? { description: spec.body.description } : {}),
              content: spec.body.content ?? { 'application/json': { schema: ref(spec.body.component ?? 'JsonValue') } },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'GuardAgent API',
      version: info.version,
      description:
        'Guard an LLM agent: submit the action it proposes and get allow / deny / pending, decided by deterministic rails ' +
        'and verified guard programs (GuardAgent, arXiv 2406.09187). Authenticate with `Authorization: Bearer <apiKey>`. ' +
        'The server admin key (GUARDAGENT_ADMIN_KEY) creates tenants and acts as the tenant `default` with every scope. ' +
        'A tenant key has scopes: `check` (ask for decisions: give agents these), `feedback`, `operate` (policies, ' +
        'inline policies, compiles, demonstrations, approvals) and `admin` (the tenant\'s keys); each operation names the ' +
        'scope it needs in `x-required-scope`. ' +
        "Ids of another tenant's checks, batches and policies answer 404, like unknown ids.",
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'checks', description: 'Guard one proposed action' },
      { name: 'batches', description: 'Guard many jobs at once' },
      { name: 'policies', description: 'Policies as code, compiled into verified guard programs' },
      { name: 'memory', description: 'Demonstrations the LLM learns from' },
      { name: 'tenants', description: 'Tenants (server admin key)' },
      { name: 'keys', description: "A tenant's API keys and their scopes" },
      { name: 'approvals', description: 'Approving held tool calls (operate scope)' },
      { name: 'operations', description: 'Health, readiness, metrics' },
    ],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A tenant API key (with scopes), or the server admin key' } },
      schemas: componentSchemas(),
    },
  };
}
