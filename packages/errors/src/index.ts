export { GuardAgentError } from './guard-agent-error';
export { ValidationError, type FieldIssue } from './validation-error';
export { NotFoundError } from './not-found-error';
export { DecisionLostError } from './decision-lost-error';
export { LlmNotConfiguredError, LlmRequestError, LlmReplyError } from './llm-errors';
export { SandboxExecutionError, SandboxQuarantinedError, sandboxErrorCode, type SandboxErrorKind, type QuarantineScope } from './sandbox-error';
export { NoCompiledProgramError, VerificationFailedError } from './policy-errors';
export {
  CheckTimeoutError,
  GuardDeniedError,
  GuardPendingError,
  UnavailableError,
  UnauthorizedError,
  ConfigError,
} from './client-errors';
export { errorMessage } from './error-message';
export { QuotaExceededError, PayloadTooLargeError } from './quota-errors';
export { ScopeRequiredError } from './scope-errors';
export { IdempotencyConflictError } from './idempotency-errors';
export { StoreFullError } from './store-full-error';
export { ConflictError } from './conflict-error';
