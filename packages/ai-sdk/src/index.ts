export { guardTools, type GuardToolsOptions } from './guard-tools';
export {
  guardApprovalRequests,
  guardAgentApprovalResponses,
  respondToApproval,
  type ApprovalRequestPart,
  type GuardApprovalOptions,
  type GuardApprovalRequest,
} from './approval-responses';
