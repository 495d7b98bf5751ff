// The agent SDK over HTTP: what an agent that calls the gateway needs, and nothing that talks to
// Redis. QueueTransport and RedisHeldCalls (BullMQ, ioredis) are at `@guardagent/client/queue`, for
// the gateway, the CLI's local stack and the MCP proxy; test/install/tarballs.test.ts checks that an
// install of the packed SDK holds no Redis client.
export type { GuardTransport, CheckOptions, FeedbackInput, AdmitJobs } from './guard-transport';
export { jobIdFor, compileIdFor, CHECK_ID_PATTERN, COMPILE_ID_PATTERN } from './job-id';
export {
  HttpTransport,
  GatewayError,
  type HttpTransportOptions,
  type BatchStatus,
  type ApiKeyScope,
  type ApiKeyView,
  type IssuedApiKey,
  type PolicyView,
  type PolicyVersionInfo,
  type TenantInfo,
  type QuotasView,
  type ApprovalDecisionOptions,
  type ApprovalListQuery,
} from './http-transport';
export { EXIT_CODES, exitCodeOfDecision, exitCodeOfError, isTransientErrorCode, type ExitCode, type ExitCodeName } from './exit-codes';
export { guardTool, type GuardToolOptions, type GuardedTool, type GuardedCallOptions, type SubjectInput } from './guard-tool';
export { checkGuardedCall, type GuardedCallInput, type GuardedCallOutcome, type HeldCallInfo } from './guarded-call';
export { InMemoryHeldCalls, type HeldCall, type HeldCalls } from './held-calls';
export { WEBHOOK_HEADERS, signWebhook, verifyWebhookSignature, type VerifyWebhookInput } from './webhook-signature';
export { approvalViewOf, type ApprovalView, type ApprovalReader, type ApprovalDecider } from './approval-view';
// What an agent catches and reads, so that a project that installs only this package has it.
export {
  GuardAgentError,
  GuardDeniedError,
  GuardPendingError,
  CheckTimeoutError,
  UnavailableError,
  UnauthorizedError,
  ConfigError,
  ValidationError,
  NotFoundError,
  QuotaExceededError,
  PayloadTooLargeError,
  ScopeRequiredError,
  IdempotencyConflictError,
  StoreFullError,
  DecisionLostError,
  type FieldIssue,
} from '@guardagent/errors';
export type { Decision, GuardJobInput, PolicyInput, Policy, Subject, JsonObject, TextOrJson, CompileResult, PiiKind } from '@guardagent/schemas';
// The largest text a guard job carries (a longer one is refused).
export { MAX_TEXT_CHARS } from '@guardagent/schemas';
