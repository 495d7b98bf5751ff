export { guardAgentToolInput, refusalText, type GuardToolInputOptions } from './guard-tool-input';
