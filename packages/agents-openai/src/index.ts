export { guardAgentTool, guardAgentToolInput, refusalText, type GuardToolInputOptions } from './guard-tool-input';
