import type { ToolboxPack } from '@guardagent/schemas';
import type { ToolboxDeps, ToolboxFunction } from './toolbox-function';
import { corePack } from './packs/core';
import { ehragentPack } from './packs/ehragent';
import { seeactPack } from './packs/seeact';
import { railsPack } from './packs/rails';

export const TOOLBOX_PACK_FUNCTIONS: Record<ToolboxPack, ToolboxFunction[]> = {
  core: corePack,
  ehragent: ehragentPack,
  seeact: seeactPack,
  rails: railsPack,
};

/** The functions of the given packs (core is always included). */
export function toolboxFunctions(packs: readonly ToolboxPack[]): ToolboxFunction[] {
  const wanted = new Set<ToolboxPack>(['core', ...packs]);
  return [...wanted].flatMap((pack) => TOOLBOX_PACK_FUNCTIONS[pack]);
}

export interface BuiltToolboxFunction {
  name: string;
  async: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: any function at all; `unknown[]` parameters would not accept functions with typed ones
  fn: (...args: any[]) => unknown;
}

/** Instantiate the functions of the given packs with their dependencies. */
export function createToolbox(packs: readonly ToolboxPack[], deps: ToolboxDeps = {}): BuiltToolboxFunction[] {
  return toolboxFunctions(packs).map((f) => ({ name: f.name, async: f.async, fn: f.create(deps) }));
}

/** The text listing every callable function, for the codegen and debugger prompts. */
export function describeToolbox(packs: readonly ToolboxPack[]): string {
  return toolboxFunctions(packs)
    .map((f) => `- ${f.async ? 'await ' : ''}${f.signature}\n  ${f.description}`)
    .join('\n');
}
