export { guardAgentTool, guardAgentToolInput, refusalText, heldText, type GuardToolInputOptions } from './guard-tool-input';
export {
  guardInterruptions,
  applyGuardAgentApprovals,
  approveInterruption,
  rejectInterruption,
  type GuardInterruption,
  type GuardInterruptionOptions,
  type AppliedApprovals,
  type SdkDecisionOptions,
} from './interruptions';
