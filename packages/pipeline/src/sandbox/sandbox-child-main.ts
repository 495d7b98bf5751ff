import { LRUCache } from 'lru-cache';
import { warmDetectors } from '@guardagent/rails';
import { serveSandboxChild, type HostCall } from '@guardagent/sandbox';
import type { ToolboxPack } from '@guardagent/schemas';
import { createToolbox, toolboxFunctions, type BuiltToolboxFunction, type ToolboxDeps } from '@guardagent/toolbox';
import { SANDBOX_HOST_FUNCTIONS_ENV, SANDBOX_MAX_RUNS_ENV } from './sandbox-worker-env';

// A sandbox worker process (forked by the executor's SandboxProcessPool): guard code and every
// toolbox function it calls run here. Host-backed functions (the LLM classifier, which needs the
// executor's LLM client and Redis cache) are called back in the executor.

const hostFunctions = new Set((process.env[SANDBOX_HOST_FUNCTIONS_ENV] ?? '').split(',').filter(Boolean));

/** Synchronous toolbox functions need nothing per run: built once per pack list. */
const syncToolboxes = new LRUCache<string, BuiltToolboxFunction[]>({ max: 64 });

function hostDeps(callHost: HostCall): ToolboxDeps {
  return hostFunctions.has('classify')
    ? { classify: (text, categories, instruction) => callHost('classify', [text, categories, instruction]) as Promise<string> }
    : {};
}

const maxRunsPerIsolate = Number(process.env[SANDBOX_MAX_RUNS_ENV]);

// Guard code calls the rails' detectors (toolbox rails pack): build what they build on first use
// now, before the first run, not inside a run's budget.
warmDetectors();

serveSandboxChild({
  ...(Number.isInteger(maxRunsPerIsolate) && maxRunsPerIsolate > 0 ? { pool: { maxRunsPerIsolate } } : {}),
  buildToolbox(packs, _tenant, callHost) {
    const key = packs.join(',');
    let base = syncToolboxes.get(key);
    if (!base) {
      base = createToolbox(packs as ToolboxPack[]);
      syncToolboxes.set(key, base);
    }
    if (!base.some((f) => f.async)) return base;
    // Async functions may call the host: bind them to this run, so the executor knows who waits.
    const deps = hostDeps(callHost);
    const perRun = new Map(toolboxFunctions(packs as ToolboxPack[]).filter((f) => f.async).map((f) => [f.name, f.create(deps)]));
    return base.map((f) => (f.async ? { ...f, fn: perRun.get(f.name) ?? f.fn } : f));
  },
});
