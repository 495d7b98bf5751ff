import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { ApiComponent } from './api-schemas';
import type { Caller, KeyScope } from '@guardagent/api-keys';

/**
 * `server-admin`: only the server's admin key (GUARDAGENT_ADMIN_KEY); `metrics`: the admin key or
 * the metrics key (GUARDAGENT_METRICS_KEY, which reads /metrics and nothing else); a scope: a key
 * holding it.
 */
export type AuthLevel = 'none' | 'server-admin' | 'metrics' | KeyScope;

interface RouteContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The authenticated caller (routes with auth 'none' get the admin tenant, unauthenticated). */
  caller: Caller;
  request: FastifyRequest;
  reply: FastifyReply;
}

interface ResponseSpec {
  description: string;
  component?: ApiComponent;
  /** Default application/json. */
  contentType?: string;
}

interface BodySpec {
  component?: ApiComponent;
  /** OpenAPI media types when the body is not a plain JSON component (NDJSON batches). */
  content?: Record<string, { schema: Record<string, unknown> }>;
  description?: string;
  /** `stream`: the handler reads request.raw itself (no buffering, no JSON parse). */
  mode?: 'json' | 'stream';
  /** Bytes; default the gateway's JSON body limit. */
  limit?: number;
}

/** One HTTP operation: how Fastify serves it and how the OpenAPI document describes it, in one place. */
export interface RouteSpec<P = unknown, Q = unknown, B = unknown> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Fastify path syntax (`/v1/checks/:id`). */
  url: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  auth: AuthLevel;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: BodySpec & { schema?: z.ZodType<B> };
  responses: Record<number, ResponseSpec>;
  hidden?: boolean;
  handler(ctx: RouteContext<P, Q, B>): Promise<unknown>;
}

/** Identity helper that keeps the zod-inferred types of one route's params, query and body. */
export function route<P = Record<string, never>, Q = Record<string, never>, B = undefined>(spec: RouteSpec<P, Q, B>): RouteSpec<P, Q, B> {
  return spec;
}

// Route lists hold specs of different shapes; the handler's own types were checked by route().
// biome-ignore lint/suspicious/noExplicitAny: specs of any parameter, query and body types
export type AnyRouteSpec = RouteSpec<any, any, any>;
