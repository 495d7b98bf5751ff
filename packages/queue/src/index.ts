export { STAGES, type Stage } from './stages';
export { createRedisConnection, waitUntilReady, type RedisPurpose } from './redis-connection';
export { keys, DEPLOYMENT_SEGMENTS, RESERVED_TENANT_IDS, isReservedTenantId, type Keys } from './keys';
export {
  PipelineStateSchema,
  StageJobPayloadSchema,
  VerificationFailureSchema,
  type StageJobPayload,
  type PipelineState,
  type VerificationFailure,
} from './pipeline-state';
export {
  PipelineJobSchema,
  ArchiveJobSchema,
  FeedbackJobSchema,
  type StageJobKind,
  type StageJobData,
  type StageJobDataOf,
  type PipelineHop,
  type PipelineJobKind,
  type SideJobKind,
  type StageJobOf,
  type PipelineJob,
  type ArchiveJob,
  type FeedbackJob,
} from './stage-job';
export { ResultStore, METRIC_POLICIES_PER_TENANT, OTHER_POLICIES_LABEL, DEFAULT_DECISION_LOG_RETENTION, type DecisionLogRetention, type ReplyMessage, type DecisionToSave, type JobFence, type SaveDecisionOutcome, type HashWrite } from './result-store';
export { CHECK_CHUNK_JOB, MAX_CHUNK_CHECKS, CheckChunkJobSchema, newChunkJobId, chunkJobIdOf, checksCarried, type CheckChunkJob } from './check-chunk';
export { recordCheckChunks, chunkJobOfCheck } from './check-chunk-locator';
export { ReplyListener } from './reply-listener';
export { DecisionLog, type DecisionLogQuery } from './decision-log';
export { QueueSet, DEFAULT_JOB_OPTIONS } from './queue-set';
export { newPipelineState, enqueueCompile, type NewStateInput } from './new-pipeline-state';
export { RedisScript } from './redis-script';
export { MemoryHeadroom, refuseWhenFull, type MemoryHeadroomOptions } from './memory-headroom';
export { infoField, parseMemoryInfo } from './redis-info';
export { isRedisOutOfMemory } from './redis-out-of-memory';
export { isRedisConnectionError, isRedisTransientError, redisTransientKind, RedisNotReadyError } from './redis-connection-error';
export { checkRedisSettings, type RedisSettingWarning, type RedisSettingCode } from './redis-settings-check';
export { RedisOutageLog, type OutageLogger } from './redis-outage-log';
export { settleShardLayout } from './shard-layout-record';
export {
  writeSandboxPoolReport,
  removeSandboxPoolReport,
  readSandboxPoolReports,
  readSandboxCounts,
  type SandboxPoolReport,
  type SandboxCountDeltas,
} from './sandbox-pool-reports';
export { reportRedisSettings } from './report-redis-settings';
