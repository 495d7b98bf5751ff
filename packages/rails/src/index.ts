export { compileRails } from './compile-rails';
export { railsIssues, assertPolicyValid } from './lint/rails-issues';
export type { CompiledRails, CompiledTool, CompiledCondition, CompiledPiiFilter } from './compiled-rails';
export { NOT_YET_APPROVED_REASON, REJECTED_REASON } from './approval-contract';
export { evaluateRails, checkRails, INLINE_MAX_CHARS, RAILS_OFFLOAD_DEADLINE_MS, type RailsDeps, type RailsCheck } from './evaluate-rails';
export { RailsWorkerPool, type RailsWorkerPoolOptions } from './offload/rails-worker-pool';
export type { RailsOffload, OffloadResult, OffloadFailure } from './offload/offload-types';
export { jsonChars } from './offload/rails-weight';
export { takeTurn, warmDetectors } from './offload/turn-budget';
export { redactPiiDeep } from './pii/redact-pii-deep';
export type { RailsOutcome, RailsVerdict } from './rails-outcome';
export type { RailsJob } from './rails-job';
export { detectPii, redactPii, redactFindings, piiPlaceholder, PII_KINDS, type PiiFinding } from './pii/detect-pii';
export { luhnValid } from './pii/luhn';
export { ibanValid } from './pii/iban';
export { detectInjection, warmInjectionDetector, type InjectionResult } from './injection/detect-injection';
export { canonicalJson, toolCallHash } from './canonical-json';
export { closeObjectSchemas } from './args-schema';
export type { RateLimiter, RateLimitRequest, RateLimitResult } from './stores/rate-limiter';
export { rateLimitKey } from './stores/rate-limiter';
export { RedisRateLimiter, type RedisRateLimiterOptions } from './stores/redis-rate-limiter';
export { InMemoryRateLimiter } from './stores/in-memory-rate-limiter';
export type {
  ApprovalStore,
  ApprovalRequest,
  ApprovalTicket,
  ApprovalRecord,
  ApprovalCall,
  ApprovalStatus,
  ApproveResult,
  RejectResult,
  ConsumeResult,
  DecideOptions,
} from './stores/approval-store';
export { RedisApprovalStore, type RedisApprovalStoreOptions, type PreparedApproval, type ApprovalQuery, type ApprovalPage } from './stores/redis-approval-store';
export { DeferredApprovalStore } from './stores/deferred-approval-store';
export { InMemoryApprovalStore } from './stores/in-memory-approval-store';
export { newApprovalToken, approvalTokenHash, looksLikeApprovalToken, looksLikeApprovalId, approvalIdOf } from './stores/approval-token';
export { benchmarkRailsEval, BENCHMARK_RAILS_CONFIG } from './benchmark';
export { RAILS_DEADLINE_MS } from './check-text';
export * from './text';
export { decodings, decodedSourceSpan, likelyCiphers, MAX_DEPTH, type DecodedText, type DecodeOptions, type CipherName } from './text/decodings';
