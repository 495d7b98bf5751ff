export { CHANGE_KINDS, FLIPS, DecisionDiffBuilder, DecisionDiffSchema, DecisionSummarySchema, changeOf, formatDiff } from './decision-diff';
export type { ChangeKind, DecisionDiff, DecisionSummary, RecordedDecision } from './decision-diff';
export { ReplayProgressSchema, type ReplayProgress } from './replay-progress';
export { ReplayInterruptedError } from './replay-interrupted-error';
export { ReplayStalledError } from './replay-stalled-error';
export { replayCheckId, replayJobKey } from './replay-job-key';
export { runReplay, type ReplayDeps, type ReplayOptions } from './run-replay';
