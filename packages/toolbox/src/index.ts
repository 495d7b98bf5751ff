export type { ToolboxDeps, ToolboxFunction } from './toolbox-function';
export {
  TOOLBOX_PACK_FUNCTIONS,
  toolboxFunctions,
  createToolbox,
  describeToolbox,
  type BuiltToolboxFunction,
} from './registry';
export * from './packs/core';
export * from './packs/ehragent';
export * from './packs/seeact';
export * from './packs/rails';
export { warmUpToolbox } from './warm-up';
