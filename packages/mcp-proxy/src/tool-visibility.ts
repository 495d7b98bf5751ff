import type { Policy } from '@guardagent/client';

/** What `tools/list` may show a subject. */
export type ToolVisibility = (exposedName: string) => boolean;

/**
 * The tools a subject's roles may call, from the policy's rails allow-list. A policy with rails
 * shows only the tools some role of the subject lists, so a tool the upstream adds later stays
 * hidden until the policy names it. A policy without rails has no allow-list: every tool is
 * shown and each call is left to the policy's program or GuardAgent stage.
 */
export function toolVisibility(policy: Pick<Policy, 'rails'>, roles: readonly string[]): ToolVisibility {
  const rails = policy.rails;
  if (!rails) return () => true;
  const allowed = new Set<string>();
  for (const role of roles) for (const tool of rails.roles[role]?.tools ?? []) allowed.add(tool);
  return (name) => allowed.has(name);
}
