export { canonicalJson, sha256 } from '@guardagent/schemas';
export { policyDigest, programDigest } from './policy-digest';
export { PolicyRegistry, INLINE_SNAPSHOT_TTL_SECONDS, MAX_POLICY_VERSIONS, type RegisteredPolicy, type PolicyVersionEntry } from './policy-registry';
export {
  ProgramStore,
  PromotedProgramSchema,
  VerificationReportSchema,
  type PromotedProgram,
  type VerificationReport,
} from './program-store';
