import type { ToolboxPack } from '@guardagent/schemas';

/** Services a toolbox function may need; each is optional, and a function that needs a missing one fails clearly. */
export interface ToolboxDeps {
  /**
   * LLM-backed text classification (cached by input hash by the caller). Returns one of `categories`.
   * Absent when no LLM is configured.
   */
  classify?: (text: string, categories: string[], instruction?: string) => Promise<string>;
}

/**
 * A trusted function that guard code may call. Implementations run on the host (outside the
 * sandbox); arguments and results are copied across the boundary, so both must be plain data.
 */
export interface ToolboxFunction {
  /** Global name inside the sandbox, e.g. `checkAccess`. Unique across all packs. */
  name: string;
  pack: ToolboxPack;
  /** TypeScript-like signature shown to the LLM, e.g. `checkAccess(needed: Access, allowed: Access): {...}`. */
  signature: string;
  /** One or two sentences for the LLM and the docs: what it does, what it returns. */
  description: string;
  /** True when the function returns a Promise (guard code must `await` it). */
  async: boolean;
  /** Build the callable once per process with its dependencies. */
  // biome-ignore lint/suspicious/noExplicitAny: any function at all; `unknown[]` parameters would not accept functions with typed ones
  create(deps: ToolboxDeps): (...args: any[]) => unknown;
}
