import { NotFoundError } from '@guardagent/errors';
import { RedisApprovalStore } from '@guardagent/rails';
import { ApprovalBodySchema } from '../api-schemas';
import type { GatewayDeps } from '../gateway-deps';
import { ConflictError, ForbiddenError } from '../gateway-errors';
import { route, type AnyRouteSpec } from '../route-spec';
import { ADMIN_TENANT } from '../tenant-store';

/**
 * Approving a held tool call is the operator's act, so it takes the `operate` scope: the agent
 * that made the call holds a `check` key and must not approve itself. A tenant's key approves its
 * own tenant's calls; the server admin key names the tenant.
 */
export function approvalRoutes(deps: GatewayDeps): AnyRouteSpec[] {
  // A tenant's approval records are in its shard (the executor writes them with its decisions).
  const approvalsOf = (tenant: string) => new RedisApprovalStore({ redis: deps.redis, prefix: deps.shardOf(tenant).prefix });
  return [
    route({
      method: 'POST',
      url: '/v1/approvals',
      operationId: 'approveCall',
      summary: 'Approve a pending tool call by its token (operate scope)',
      description:
        'The token comes from a `pending` decision. Once approved, the agent repeats the identical call with ' +
        '`context.approvalToken`; the rails allow exactly that call, once, before the token expires.',
      tag: 'approvals',
      auth: 'operate',
      body: { component: 'Approval', schema: ApprovalBodySchema },
      responses: {
        200: { description: 'Approved', component: 'ApprovalResult' },
        403: { description: 'The approver is the subject of the call, or the key lacks `operate`, or names another tenant' },
        404: { description: 'Unknown token (for this tenant)' },
        409: { description: 'The token was used or has expired' },
      },
      handler: async ({ caller, body }) => {
        if (!caller.serverAdmin && body.tenant !== undefined && body.tenant !== caller.tenant) {
          throw new ForbiddenError("a tenant's key approves only its own tenant's calls");
        }
        const tenant = caller.serverAdmin ? (body.tenant ?? ADMIN_TENANT) : caller.tenant;
        const result = await approvalsOf(tenant).approve(body.token, body.approver, { tenant });
        switch (result) {
          case 'approved':
          case 'already-approved':
            return { result };
          case 'self-approval':
            throw new ForbiddenError('the subject of a call cannot approve it');
          case 'unknown':
            throw new NotFoundError('approval token', `${body.token.slice(0, 6)}…`);
          case 'used':
          case 'expired':
            throw new ConflictError(`the approval token is ${result}`);
        }
      },
    }),
  ];
}
