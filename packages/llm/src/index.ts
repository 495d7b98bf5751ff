export {
  ChatMessageSchema,
  type ChatMessage,
  type ChatOptions,
  type ChatResult,
  type Llm,
  type LlmCallInfo,
  type LlmPurpose,
} from './chat-types';
export {
  LlmConfigSchema,
  llmConfigFromEnv,
  parseLlmConfig,
  describeLlmConfig,
  OPENAI_DEFAULT_BASE_URL,
  OPENAI_DEFAULT_MODEL,
  DEFAULT_LLM_TIMEOUT_MS,
  DEFAULT_LLM_MAX_RETRIES,
  type LlmConfig,
} from './llm-config';
export { LlmClient, type LlmClientOptions } from './llm-client';
export { requireLlm } from './require-llm';
export { redactSecret, safeUrl } from './redact';
export { extractCode } from './extract-code';
export { extractPlan } from './extract-plan';
export {
  DEFAULT_PROMPT_CHARS,
  TRUNCATION_NOTE,
  truncateMiddle,
  promptValue,
  type PromptLimits,
} from './prompt-text';
export { GUARD_CODE_CONTRACT } from './prompts/guard-code-contract';
export type { PlanDemonstration, CodeDemonstration } from './prompts/demonstrations';
export { planningPrompt, PLAN_STEPS, type PlanningPromptArgs } from './prompts/planning-prompt';
export { codegenPrompt, type CodegenPromptArgs } from './prompts/codegen-prompt';
export { debugPrompt, failureHint, type DebugPromptArgs, type GuardCodeFailure } from './prompts/debug-prompt';
export {
  compilePlanningPrompt,
  compileCodegenPrompt,
  compileDebugPrompt,
  COMPILE_PLAN_STEPS,
  GENERIC_PROGRAM_RULE,
  type CompilePlanningPromptArgs,
  type CompileCodegenPromptArgs,
  type CompileDebugPromptArgs,
} from './prompts/compile-prompts';
export type { CompileExample, CompileFailure } from './prompts/labelled-cases';
export { baselinePrompt, parseBaselineReply, type BaselinePromptArgs } from './prompts/baseline-prompt';
export { classifyPrompt, parseClassifyReply } from './prompts/classify-prompt';
export { classifyWithLlm } from './classify-with-llm';
