import { createToolbox, type ToolboxDeps } from '@guardagent/toolbox';
import { guardContext, type Decision, type ToolboxPack } from '@guardagent/schemas';
import type { BenchmarkAdapter } from '../benchmark-adapter';
import { computeMetrics, metricsByGroup, type Metrics, type ScoredRecord } from '../metrics';

type ProgramDecision = Pick<Decision, 'decision' | 'status' | 'reasons' | 'details'>;

const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
  ...args: string[]
) => (...args: unknown[]) => Promise<unknown>;

export interface ProgramScore {
  metrics: Metrics;
  byGroup: Record<string, Metrics>;
  scored: ScoredRecord[];
  decisions: ProgramDecision[];
}

/** The decision a guard program's `{ deny, reasons, details }` result stands for. */
export function programResultToDecision(result: unknown): ProgramDecision {
  const r = (result ?? {}) as { deny?: unknown; reasons?: unknown; details?: unknown };
  const reasons = Array.isArray(r.reasons) ? r.reasons.map(String) : [];
  const details = r.details && typeof r.details === 'object' ? (r.details as Record<string, unknown>) : {};
  return { decision: r.deny === true ? 'deny' : 'allow', status: 'ok', reasons, details };
}

type LocalJob = { input?: unknown; output?: unknown; context?: unknown; subject?: unknown; action?: unknown };

/**
 * A guard program as a local function (NOT a sandbox; trusted code only): toolbox functions are
 * passed as parameters the way the sandbox exposes them as globals, and the program sees the
 * same `context` as in the pipeline. A throwing program counts as a fail-closed guard error.
 */
export function localProgram(program: string, packs: readonly ToolboxPack[], deps: ToolboxDeps = {}): (job: LocalJob) => Promise<ProgramDecision> {
  const toolbox = createToolbox(packs, deps);
  const fn = new AsyncFunction('input', 'output', 'context', ...toolbox.map((t) => t.name), program);
  return async (job) => {
    try {
      return programResultToDecision(await fn(job.input, job.output ?? '', guardContext(job), ...toolbox.map((t) => t.fn)));
    } catch (error) {
      return { decision: 'deny', status: 'guard_error', reasons: [], details: { error: String(error) } };
    }
  };
}

/** Iteration helper: run a guard program locally (see localProgram) over a benchmark's records and score it. */
export async function scoreProgramLocally<R>(
  adapter: BenchmarkAdapter<R>,
  records: readonly R[],
  program: string,
  packs: readonly ToolboxPack[],
  deps: ToolboxDeps = {},
): Promise<ProgramScore> {
  const run = localProgram(program, packs, deps);
  const decisions: ProgramDecision[] = [];
  const scored: ScoredRecord[] = [];
  for (const record of records) {
    const decision = await run(adapter.toJob(record));
    decisions.push(decision);
    scored.push(adapter.score(record, decision));
  }
  return { metrics: computeMetrics(scored), byGroup: metricsByGroup(scored), scored, decisions };
}
