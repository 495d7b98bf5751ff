export {
  DemonstrationStore,
  DEFAULT_CANDIDATE_TTL_SECONDS,
  DEFAULT_CACHE_ENTRIES,
  type DemonstrationStoreOptions,
  type SeedOptions,
  type SeedResult,
  type RetrievedDemonstration,
  type ConfirmResult,
} from './demonstration-store';
export { nearestDemonstrations, nearestDemonstrationsYielding, type NearestOptions } from './nearest-demonstrations';
export { retrievalText, capText, DEFAULT_MAX_CHARS, type RetrievalQuery } from './retrieval-text';
export { DemonstrationIndex } from './demonstration-index';
export {
  StoredDemonstrationSchema,
  DemonstrationSourceSchema,
  DEMONSTRATION_SOURCES,
  sameDemonstrationContent,
  type StoredDemonstration,
  type DemonstrationSource,
} from './stored-demonstration';
export {
  CandidateSchema,
  ArchivedCandidateSchema,
  ConfirmationSchema,
  decisionAgreesWithLabel,
  type Candidate,
  type CandidateInput,
  type ArchivedCandidate,
  type Confirmation,
} from './candidate';
export { FeedbackRecordSchema, type FeedbackRecord } from './feedback-record';
export { demonstrationContentId, demonstrationIdOf } from './demonstration-id';
export { TenantIdSchema, JobIdSchema } from './identifiers';
export { memoryKeys, type MemoryKeys } from './keys';
export { loadDemonstrationsFile } from './load-demonstrations-file';
export { DemonstrationCache } from './demonstration-cache';
