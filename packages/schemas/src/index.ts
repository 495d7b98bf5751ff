export { JsonValueSchema, JsonObjectSchema, TextOrJsonSchema, MAX_TEXT_CHARS, sizeIssue, textOf } from './json';
export { jsonCharsOver } from './json-size';
export { jsonShapeIssue, FORBIDDEN_JSON_KEYS, MAX_JSON_DEPTH, type JsonShapeIssue } from './json-shape';
export type { JsonObject, TextOrJson } from './json';
export { SubjectSchema, type Subject } from './subject';
export {
  ActionSchema,
  ToolCallActionSchema,
  MessageActionSchema,
  type Action,
  type ToolCallAction,
  type MessageAction,
} from './action';
export {
  RailsConfigSchema,
  ToolRuleSchema,
  PiiKindSchema,
  PiiFilterSchema,
  InjectionFilterSchema,
  type RailsConfig,
  type ToolRule,
  type PiiKind,
} from './rails-config';
export {
  PolicySchema,
  PolicyIdSchema,
  POLICY_ID_PATTERN,
  TOOLBOX_PACKS,
  ToolboxPackSchema,
  DemonstrationSchema,
  LabelledExampleSchema,
  PolicyLimitsSchema,
  type Policy,
  type PolicyInput,
  type ToolboxPack,
  type Demonstration,
  type LabelledExample,
} from './policy';
export { GuardJobSchema, FeedbackCaseSchema, type GuardJob, type GuardJobInput, type FeedbackCase } from './guard-job';
export { DecisionSchema, RedactedSchema, UsageSchema, emptyUsage, type Decision, type Redacted, type Usage } from './decision';
export { DecisionLogEntrySchema, type DecisionLogEntry } from './decision-log-entry';
export { parseOrThrow, toFieldIssues } from './parse';
export { parsePolicyText, readPolicyText } from './policy-text';
export { readYamlText, parseYamlText, type YamlText } from './yaml-text';
export { closestName, didYouMean, listNames } from './did-you-mean';
export { CompileResultSchema, VerificationReportSchema, type CompileResult, type VerificationReport } from './compile-result';
export { BatchStatusSchema, type BatchStatus, type BatchState } from './batch-status';
export { canonicalJson, sha256 } from './canonical-json';
export { guardContext } from './guard-context';
export { parseSince } from './since';
export { TOOLBOX_PACK_VERSIONS } from './toolbox-pack-versions';
