import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import swagger from '@fastify/swagger';
import { ScopeRequiredError, UnauthorizedError } from '@guardagent/errors';
import { parseOrThrow } from '@guardagent/schemas';
import { bodyWithin } from './body-deadline';
import { registerConsole } from './console-page';
import { registerDocsPage } from './docs-page';
import { errorResponse } from './error-response';
import { ForbiddenError } from './gateway-errors';
import type { GatewayDeps } from './gateway-deps';
import { openApiDocument } from './openapi-document';
import type { AnyRouteSpec, AuthLevel } from './route-spec';
import { ADMIN_TENANT, callerOfKey, sameKey, scopeGrants, type Caller } from '@guardagent/api-keys';
import { keyRoutes } from './routes/key-routes';
import { batchRoutes } from './routes/batch-routes';
import { decisionLogRoutes } from './routes/decision-log-routes';
import { checkRoutes } from './routes/check-routes';
import { demonstrationRoutes } from './routes/demonstration-routes';
import { operationRoutes } from './routes/operation-routes';
import { replayRoutes } from './routes/replay-routes';
import { policyRoutes } from './routes/policy-routes';
import { tenantRoutes } from './routes/tenant-routes';
import { approvalRoutes } from './routes/approval-routes';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads its body as a stream (batches), keeping its own deadline (chunksInTime). */
    streamedBody?: boolean;
  }
}

export const API_VERSION = '0.1.0';
const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/** Whether the request says it carries a body (a length over 0, or chunked). */
function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Who is calling, and whether their key may do what the route needs. */
async function authenticate(deps: GatewayDeps, header: string | undefined, level: Exclude<AuthLevel, 'none'>, what: string): Promise<Caller> {
  const match = BEARER.exec(header ?? '');
  if (!match) throw new UnauthorizedError('Send Authorization: Bearer <apiKey>');
  // The metrics key reads /metrics and is no key anywhere else (the answer there: 401, as any unknown key).
  if (level === 'metrics' && deps.config.metricsKey && sameKey(match[1], deps.config.metricsKey)) {
    return { tenant: ADMIN_TENANT, serverAdmin: false, scopes: [], keyId: null };
  }
  const caller = await callerOfKey({ adminKey: deps.config.adminKey, apiKeys: deps.apiKeys }, match[1]);
  if (!caller) throw new UnauthorizedError('Invalid API key');
  if (level === 'metrics') {
    if (!caller.serverAdmin) throw new ForbiddenError('Only the metrics key (GUARDAGENT_METRICS_KEY) or the admin key reads the metrics: they name every tenant and policy');
  } else if (level === 'server-admin') {
    if (!caller.serverAdmin) throw new ForbiddenError('Only the admin key (GUARDAGENT_ADMIN_KEY) may do this');
  } else if (!scopeGrants(caller.scopes, level)) {
    throw new ScopeRequiredError(level, what);
  }
  return caller;
}

/** The Fastify app of the gateway: routes, OpenAPI document, docs page, one error handler. */
export async function buildGateway(deps: GatewayDeps): Promise<FastifyInstance> {
  // Errors of the router itself (a malformed %-escape, a path parameter over maxParamLength) get
  // the same answer shape as every other error (they come before any route's handler).
  const sendError = (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body, unexpected } = errorResponse(error);
    if (unexpected) deps.logger.error({ err: error instanceof Error ? error.stack : String(error), url: request.url, reqId: request.id }, 'request failed');
    if (status === 401) reply.header('www-authenticate', 'Bearer');
    const retryAfter = body.error.details?.retryAfterSeconds;
    if ((status === 429 || status === 503) && typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
    return reply.code(status).type('application/json; charset=utf-8').send(body);
  };
  // The body's deadline (see GatewayLimits.bodyTimeoutMs) for JSON bodies; streamed bodies keep
  // theirs as they read (chunksInTime).
  const jsonBodyDeadline = async (request: FastifyRequest, _reply: FastifyReply, payload: Readable) => {
    if (!hasBody(request) || request.routeOptions.config.streamedBody) return payload;
    const deadline = bodyWithin(payload, deps.limits.bodyTimeoutMs, () => request.raw.socket?.destroy());
    request.raw.once('close', () => deadline.cancel());
    return deadline;
  };
  const app = Fastify({
    logger: false,
    frameworkErrors: (error, request, reply) => void sendError(error, request, reply),
    bodyLimit: deps.limits.jsonBodyBytes,
    // A gateway behind a proxy sees the client's request id; otherwise we make one.
    requestIdHeader: 'x-request-id',
    forceCloseConnections: true,
    requestTimeout: deps.limits.requestTimeoutMs,
    // Node checks the request deadline every connectionsCheckingInterval (default 30 s).
    http: {
      headersTimeout: Math.min(60_000, deps.limits.requestTimeoutMs),
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(deps.limits.requestTimeoutMs / 4))),
    },
    return503OnClosing: true,
  });
  const callers = new WeakMap<FastifyRequest, Caller>();
  let document: Record<string, unknown> = {};
  const routes: AnyRouteSpec[] = [
    ...checkRoutes(deps),
    ...batchRoutes(deps),
    ...decisionLogRoutes(deps),
    ...policyRoutes(deps),
    ...replayRoutes(deps),
    ...demonstrationRoutes(deps),
    ...tenantRoutes(deps),
    ...keyRoutes(deps),
    ...approvalRoutes(deps),
    ...operationRoutes(deps, () => document),
  ];
  document = openApiDocument(routes, { version: API_VERSION });

  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  registerDocsPage(app);
  registerConsole(app);

  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  const noRoute = (request: FastifyRequest, reply: FastifyReply) =>
    reply.code(404).send({ error: { code: 'NOT_FOUND', message: `no route ${request.method} ${request.url.split('?')[0]}` } });
  app.setNotFoundHandler(noRoute);
  // No route: answered before any of a body is read (and the connection then closed, see onSend).
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return noRoute(request, reply);
  });
  app.addHook('preParsing', jsonBodyDeadline);
  // An answer sent before the request's body has all arrived (an error halfway through a batch, a
  // deadline passed, a body on a GET) closes the connection: the rest of the body is not read.
  app.addHook('onSend', async (request, reply) => {
    if (!request.raw.complete) reply.header('connection', 'close');
  });
  app.addHook('onResponse', async (request, reply) => {
    deps.metrics.observeRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode);
  });

  const register = (instance: FastifyInstance, spec: AnyRouteSpec) => {
    instance.route({
      method: spec.method,
      url: spec.url,
      ...(spec.body?.limit && spec.body.mode !== 'stream' ? { bodyLimit: spec.body.limit } : {}),
      ...(spec.body?.mode === 'stream' ? { config: { streamedBody: true } } : {}),
      // Authenticate before the body is read: an anonymous client cannot make us read 500 MB.
      onRequest: (() => {
        const level = spec.auth;
        if (level === 'none') return [];
        const what = `${spec.method} ${spec.url}`;
        return [async (request: FastifyRequest) => void callers.set(request, await authenticate(deps, request.headers.authorization, level, what))];
      })(),
      handler: async (request, reply) => {
        const params = spec.params ? parseOrThrow(spec.params, { ...(request.params as object) }, 'path parameters') : {};
        const query = spec.query ? parseOrThrow(spec.query, { ...(request.query as object) }, 'query parameters', 'query') : {};
        const body = spec.body?.schema && spec.body.mode !== 'stream' ? parseOrThrow(spec.body.schema, request.body, 'request body') : request.body;
        const caller = callers.get(request) ?? { tenant: ADMIN_TENANT, serverAdmin: false, scopes: [], keyId: null };
        return spec.handler({ params, query, body, caller, request, reply });
      },
    });
  };

  for (const spec of routes.filter((r) => r.body?.mode !== 'stream')) register(app, spec);
  // Streamed bodies get no parser: the handler reads request.raw as it arrives.
  await app.register(async (child) => {
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    for (const spec of routes.filter((r) => r.body?.mode === 'stream')) register(child, spec);
  });
  return app;
}
