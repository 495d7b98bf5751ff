export { guardTools, type GuardToolsOptions } from './guard-tools';
