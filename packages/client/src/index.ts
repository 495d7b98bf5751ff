export type { GuardTransport, CheckOptions, FeedbackInput } from './guard-transport';
export { QueueTransport, type QueueTransportOptions, type AdmitJobs } from './queue-transport';
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
} from './http-transport';
export { EXIT_CODES, exitCodeOfDecision, exitCodeOfError, isTransientErrorCode, type ExitCode, type ExitCodeName } from './exit-codes';
export { guardTool, type GuardToolOptions, type GuardedTool, type SubjectInput } from './guard-tool';
