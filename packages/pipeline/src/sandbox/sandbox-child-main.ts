import { LRUCache } from 'lru-cache';
import { warmDetectors } from '@guardagent/rails/detectors';
import { serveSandboxChild, type HostCall } from '@guardagent/sandbox';
import { TOOLBOX_PACKS, type ToolboxPack } from '@guardagent/schemas';
import { createToolbox, toolboxFunctions, warmUpToolbox, type BuiltToolboxFunction, type ToolboxDeps } from '@guardagent/toolbox';
import { SANDBOX_HOST_FUNCTIONS_ENV, SANDBOX_MAX_RUNS_ENV, SANDBOX_WARM_UP_ENV } from './sandbox-worker-env';

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

/**
 * The guard program a worker runs once before it is ready: one function of each pack, so the
 * isolate of the default memory size, its context and the toolbox bridge exist (and V8 has
 * compiled the harness) before the first real run.
 */
const WARM_UP_PROGRAM = `
  const access = checkAccess({ patient: ['age'] }, { patient: ['*'] });
  const task = classifyTask(String(input));
  const english = readEnglish(String(input));
  const action = parseSeeActAction(String(output));
  const code = ehrCodeAnalysis(ehrExtractCode('Generated code:\\nLoadDB("patient")\\nAnswer: 1'));
  const pii = detectPii(String(output));
  return { deny: access.denied || !english.english, reasons: [task.categories.join(','), String(action.action), String(code.unanalysable.length), String(pii.length)] };
`;

serveSandboxChild({
  ...(Number.isInteger(maxRunsPerIsolate) && maxRunsPerIsolate > 0 ? { pool: { maxRunsPerIsolate } } : {}),
  // Warm before ready: a worker that starts after another died must not make the next runs pay
  // for loading WordNet and the indexes (seconds on a loaded machine) inside their deadlines.
  ...(process.env[SANDBOX_WARM_UP_ENV] === 'off'
    ? {}
    : {
        async warmUp(run) {
          warmUpToolbox();
          // Both ways guard code runs: a fresh context (per-request code) and a kept, hardened one (programs).
          for (const reuse of ['fresh', 'program'] as const) {
            const result = await run({ code: WARM_UP_PROGRAM, packs: TOOLBOX_PACKS, input: 'Book a flight to Rome', output: 'ELEMENT: A\nACTION: CLICK\nVALUE: None', reuse });
            if (!result.ok) throw new Error(`the warm-up program failed (${result.error.kind}): ${result.error.message}`);
          }
        },
      }),
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
