import { approvalViewOf } from '@guardagent/client';
import { NotFoundError, ScopeRequiredError } from '@guardagent/errors';
import { RedisApprovalStore, looksLikeApprovalToken } from '@guardagent/rails';
import {
  ApprovalBodySchema,
  ApprovalDecideBodySchema,
  ApprovalListQuerySchema,
  ApprovalRefParamsSchema,
  ApprovalTenantQuerySchema,
  WebhookPutBodySchema,
} from '../api-schemas';
import type { GatewayDeps } from '../gateway-deps';
import { ConflictError, ForbiddenError } from '../gateway-errors';
import { route, type AnyRouteSpec } from '../route-spec';
import { ADMIN_TENANT, scopeGrants, type Caller } from '@guardagent/api-keys';

/** Whose held calls a request means: a tenant's key its own tenant's; the server admin key names one (default `default`). */
function approvalTenant(caller: Caller, tenant: string | undefined): string {
  if (!caller.serverAdmin && tenant !== undefined && tenant !== caller.tenant) {
    throw new ForbiddenError("a tenant's key decides and reads only its own tenant's held calls");
  }
  return caller.serverAdmin ? (tenant ?? ADMIN_TENANT) : caller.tenant;
}

const unknownApproval = (ref: string) => new NotFoundError('approval', `${ref.slice(0, 8)}…`);

/**
 * Held tool calls: listing them, reading one, approving and rejecting them. Deciding is the
 * operator's act, so it takes the `operate` scope: the agent that made the call holds a `check`
 * key and must not approve (or reject) its own calls. A `check` key may read one held call by its
 * token (the agent holds it, and learns so whether a person decided); by id, reading takes
 * `operate`. A tenant's key decides its own tenant's calls; the server admin key names the tenant.
 */
export function approvalRoutes(deps: GatewayDeps): AnyRouteSpec[] {
  // A tenant's approval records are in its shard (the executor writes them with its decisions).
  const approvalsOf = (tenant: string) => new RedisApprovalStore({ redis: deps.redis, prefix: deps.shardOf(tenant).prefix });
  const now = () => Date.now();

  const decide = async (action: 'approve' | 'reject', caller: Caller, ref: string, body: { approver: string; reason?: string | undefined; tenant?: string | undefined }) => {
    const tenant = approvalTenant(caller, body.tenant);
    const store = approvalsOf(tenant);
    const options = { tenant, ...(body.reason ? { reason: body.reason } : {}) };
    const result = action === 'approve' ? await store.approve(ref, body.approver, options) : await store.reject(ref, body.approver, options);
    switch (result) {
      case 'approved':
      case 'already-approved':
      case 'rejected':
      case 'already-rejected': {
        // `rejected` from approve: a person refused it before.
        if (action === 'approve' && result === 'rejected') throw new ConflictError('the call was rejected; it cannot be approved', { status: 'rejected' });
        const record = await store.get(ref, { tenant });
        if (!record) throw unknownApproval(ref);
        return { result, approval: approvalViewOf(record, now()) };
      }
      case 'self-approval':
        throw new ForbiddenError('the subject of a call cannot approve it', { refusal: 'self-approval' });
      case 'unknown':
        throw unknownApproval(ref);
      case 'used':
      case 'expired':
        throw new ConflictError(`the held call is ${result === 'used' ? 'used (it ran)' : 'expired'}`, { status: result });
    }
  };

  return [
    route({
      method: 'GET',
      url: '/v1/approvals',
      operationId: 'listApprovals',
      summary: 'Held tool calls waiting for a person (operate scope)',
      description:
        "The tenant's held calls, oldest first: `status=pending` (default) waits for a person, `approved` is approved and not " +
        'used yet. Filter by `policy`, `tool` and `subject`; each shows why it was held and when it expires (past that it can ' +
        'be neither approved nor run). A page holds `limit` calls; pass `next` as `cursor` for the following one. The ' +
        'approval token is never shown: a held call is named by its `id` (the token\'s sha256).',
      tag: 'approvals',
      auth: 'operate',
      query: ApprovalListQuerySchema,
      responses: { 200: { description: 'A page of held calls', component: 'ApprovalList' } },
      handler: async ({ caller, query }) => {
        const tenant = approvalTenant(caller, query.tenant);
        const page = await approvalsOf(tenant).list(tenant, {
          status: query.status,
          limit: query.limit,
          ...(query.policy !== undefined ? { policy: query.policy } : {}),
          ...(query.tool !== undefined ? { tool: query.tool } : {}),
          ...(query.subject !== undefined ? { subject: query.subject } : {}),
          ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
        });
        const at = now();
        return { approvals: page.approvals.map((record) => approvalViewOf(record, at)), next: page.next };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/approvals/:ref',
      operationId: 'getApproval',
      summary: 'One held call, by its token (check scope) or its id (operate scope)',
      description:
        "Its status (`pending`, `approved`, `rejected` with who and why, `used`, `expired`). The agent that holds the token reads whether a person decided with its `check` key.",
      tag: 'approvals',
      auth: 'check',
      params: ApprovalRefParamsSchema,
      query: ApprovalTenantQuerySchema,
      responses: { 200: { description: 'The held call', component: 'ApprovalView' }, 404: { description: 'Unknown (for this tenant)' } },
      handler: async ({ caller, params, query }) => {
        if (!looksLikeApprovalToken(params.ref) && !scopeGrants(caller.scopes, 'operate') && !caller.serverAdmin) {
          throw new ScopeRequiredError('operate', 'reading a held call by its id');
        }
        const tenant = approvalTenant(caller, query.tenant);
        const record = await approvalsOf(tenant).get(params.ref, { tenant });
        if (!record) throw unknownApproval(params.ref);
        return approvalViewOf(record, now());
      },
    }),
    route({
      method: 'POST',
      url: '/v1/approvals/:ref/approve',
      operationId: 'approveHeldCall',
      summary: 'Approve a held call (operate scope)',
      description:
        'By its id (from a listing or a webhook) or its token. The approver is recorded with the optional reason; the ' +
        "call's own subject may not approve it. The agent's retry of exactly that call, presenting the token, then runs once " +
        'before the call expires.',
      tag: 'approvals',
      auth: 'operate',
      params: ApprovalRefParamsSchema,
      body: { component: 'ApprovalDecide', schema: ApprovalDecideBodySchema },
      responses: {
        200: { description: 'Approved (or already approved)', component: 'ApprovalDecided' },
        403: { description: "The approver is the call's subject, the key lacks `operate`, or names another tenant" },
        404: { description: 'Unknown (for this tenant)' },
        409: { description: 'Rejected, used or expired' },
      },
      handler: async ({ caller, params, body }) => decide('approve', caller, params.ref, body),
    }),
    route({
      method: 'POST',
      url: '/v1/approvals/:ref/reject',
      operationId: 'rejectHeldCall',
      summary: 'Reject a held call (operate scope)',
      description:
        'By its id or its token; withdraws an approval not used yet. The token is refused from then on, and the agent\'s ' +
        'model reads the refusal with the approver and the reason.',
      tag: 'approvals',
      auth: 'operate',
      params: ApprovalRefParamsSchema,
      body: { component: 'ApprovalDecide', schema: ApprovalDecideBodySchema },
      responses: {
        200: { description: 'Rejected (or already rejected)', component: 'ApprovalDecided' },
        403: { description: 'The key lacks `operate`, or names another tenant' },
        404: { description: 'Unknown (for this tenant)' },
        409: { description: 'Used or expired' },
      },
      handler: async ({ caller, params, body }) => decide('reject', caller, params.ref, body),
    }),
    route({
      method: 'POST',
      url: '/v1/approvals',
      operationId: 'approveCall',
      summary: 'Approve a pending tool call by its token (operate scope)',
      description:
        'The token comes from a `pending` decision. Once approved, the agent repeats the identical call with ' +
        '`context.approvalToken`; the rails allow exactly that call, once, before the token expires. ' +
        '(`POST /v1/approvals/{ref}/approve` does the same and also takes the id.)',
      tag: 'approvals',
      auth: 'operate',
      body: { component: 'Approval', schema: ApprovalBodySchema },
      responses: {
        200: { description: 'Approved', component: 'ApprovalResult' },
        403: { description: 'The approver is the subject of the call, or the key lacks `operate`, or names another tenant' },
        404: { description: 'Unknown token (for this tenant)' },
        409: { description: 'The token was rejected, used or has expired' },
      },
      handler: async ({ caller, body }) => {
        if (!looksLikeApprovalToken(body.token)) throw unknownApproval(body.token);
        const { result } = await decide('approve', caller, body.token, body);
        return { result };
      },
    }),
    route({
      method: 'GET',
      url: '/v1/webhooks/approvals',
      operationId: 'getApprovalWebhook',
      summary: "Where the tenant's held calls are sent (admin scope)",
      description: "The tenant's own webhook, else the deployment's (GUARDAGENT_APPROVAL_WEBHOOK_URL). Never the secret.",
      tag: 'approvals',
      auth: 'admin',
      query: ApprovalTenantQuerySchema,
      responses: { 200: { description: 'The webhook', component: 'WebhookView' } },
      handler: async ({ caller, query }) => {
        const tenant = approvalTenant(caller, query.tenant);
        const own = await deps.webhooks.get(tenant);
        if (own) return { url: own.url, createdAt: own.createdAt, source: 'tenant' };
        const fallback = deps.config.approvalWebhook.url;
        return fallback ? { url: new URL(fallback).origin, createdAt: '', source: 'deployment' } : { url: '', createdAt: '', source: 'none' };
      },
    }),
    route({
      method: 'PUT',
      url: '/v1/webhooks/approvals',
      operationId: 'setApprovalWebhook',
      summary: "Send the tenant's held calls to a URL, signed (admin scope)",
      description:
        'Each new held call is POSTed as JSON (`type: approval.pending`) with `guardagent-webhook-id`, ' +
        '`guardagent-webhook-timestamp` and `guardagent-webhook-signature: v1=<hex HMAC-SHA256 of "<timestamp>.<body>">` ' +
        'under the secret, retried with backoff. Left out, a secret is made and shown in this answer only.',
      tag: 'approvals',
      auth: 'admin',
      query: ApprovalTenantQuerySchema,
      body: { component: 'WebhookPut', schema: WebhookPutBodySchema },
      responses: { 200: { description: 'Set', component: 'WebhookSet' } },
      handler: async ({ caller, query, body }) => {
        const tenant = approvalTenant(caller, query.tenant);
        const stored = await deps.webhooks.set(tenant, body.url, body.secret);
        return { url: stored.url, createdAt: stored.createdAt, source: 'tenant', ...(body.secret === undefined ? { secret: stored.secret } : {}) };
      },
    }),
    route({
      method: 'DELETE',
      url: '/v1/webhooks/approvals',
      operationId: 'deleteApprovalWebhook',
      summary: "Stop sending the tenant's held calls to its own webhook (admin scope)",
      description: "The deployment's webhook, if there is one, takes over.",
      tag: 'approvals',
      auth: 'admin',
      query: ApprovalTenantQuerySchema,
      responses: { 204: { description: 'Removed' }, 404: { description: 'The tenant has no webhook of its own' } },
      handler: async ({ caller, query, reply }) => {
        const tenant = approvalTenant(caller, query.tenant);
        if (!(await deps.webhooks.delete(tenant))) throw new NotFoundError('webhook', tenant);
        return reply.code(204).send();
      },
    }),
  ];
}
