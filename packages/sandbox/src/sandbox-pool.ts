import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { errorMessage } from '@guardagent/errors';
import type { GuardContext } from './guard-context';
import { IsolateGoneSignal, type Outcome } from './outcome';
import { PooledIsolate } from './pooled-isolate';
import { parseLimits, parsePoolOptions, parseRunRequest, toolboxShape, type ToolboxShape } from './run-request-schema';
import { SandboxPoolClosedError } from './sandbox-pool-closed-error';
import { snapMemoryMb } from './process/snap-memory';
import {
  DEFAULT_LIMITS,
  type ResolvedLimits,
  type RunRequest,
  type RunResult,
  type SandboxLimits,
  type SandboxPoolOptions,
  type SandboxPoolStats,
} from './sandbox-types';
import { checkVerdict } from './verdict-schema';

/** Check the heap of an isolate every this many runs (the call costs a few µs). */
const HEAP_CHECK_EVERY = 16;

interface PreparedRun {
  request: RunRequest;
  shape: ToolboxShape;
  limits: ResolvedLimits;
  hash: string;
}

/**
 * Runs untrusted guard code in a pool of isolated-vm isolates (about one per core).
 *
 * Per-run cost drives the design. Creating a V8 context costs ~550 µs (a snapshot does not
 * help), compiling a small script ~20 µs, and a warm synchronous call with copied arguments
 * ~11 µs. A new context per run would cap one process at well under 2,000 checks/s, far below
 * the 3,000 checks/s target; yet verified programs are fixed per policy. So:
 * - 'fresh' runs (unverified per-request code) get a new context, always released afterwards;
 * - 'program' runs reuse a context kept per (isolate, code hash + toolbox names) that was
 *   hardened once: toolbox globals installed, then every object reachable from globalThis deep
 *   frozen, so one job can leave no state for the next; each run is then one call.
 * Scripts are compiled once per isolate (LRU by code hash). Guard execution is driven from
 * the host with `applySync` slices under the remaining CPU budget: the first slice runs the
 * guard until it finishes or awaits an async toolbox call; each settled call re-enters with
 * another slice. The isolate therefore never runs unattended, the CPU limit covers code after
 * an `await`, and a wall-clock timer bounds time spent waiting on the host.
 * Isolates are recycled after `maxRunsPerIsolate` runs, past `maxHeapRatio`, after a CPU
 * timeout (V8 terminated code mid-flight), and when V8 disposed them at their memory limit; a
 * run that was only a bystander to such a disposal is retried once on a fresh isolate. A
 * wall-clock deadline abandons only its run: nothing was executing in the isolate meanwhile.
 */
export class SandboxPool {
  private readonly size: number;
  private readonly memoryMb: number;
  private readonly maxRunsPerIsolate: number;
  private readonly maxHeapRatio: number;
  private readonly maxRunsPerProgramContext: number;
  private readonly maxCachedScripts: number;
  private readonly maxProgramContexts: number;
  private readonly defaultLimits: ResolvedLimits;
  private readonly onCatastrophicError: (message: string) => void;
  /** Slots per isolate memory size; a null slot gets an isolate when next picked. */
  private readonly groups = new Map<number, (PooledIsolate | null)[]>();
  /** When each group last got a run. */
  private readonly groupUsedAt = new Map<number, number>();
  private readonly idleGroupMs: number;
  private readonly now: () => number;
  /** Retired isolates still finishing runs; disposed when their last run ends. */
  private readonly draining = new Set<PooledIsolate>();
  private cursor = 0;
  private closed = false;
  private runs = 0;
  private recycled = 0;
  private disposedByLimit = 0;

  constructor(options: SandboxPoolOptions = {}) {
    const o = parsePoolOptions(options);
    this.size = o.size ?? availableParallelism();
    this.defaultLimits = { ...DEFAULT_LIMITS, ...(o.defaultLimits ?? {}) };
    this.memoryMb = o.memoryMb ?? this.defaultLimits.memoryMb;
    this.defaultLimits.memoryMb = this.memoryMb;
    this.maxRunsPerIsolate = o.maxRunsPerIsolate ?? 5000;
    this.maxHeapRatio = o.maxHeapRatio ?? 0.7;
    this.maxRunsPerProgramContext = o.maxRunsPerProgramContext ?? 1000;
    this.maxCachedScripts = o.maxCachedScripts ?? 256;
    this.maxProgramContexts = o.maxProgramContexts ?? 16;
    this.idleGroupMs = o.idleGroupMs ?? 60_000;
    this.now = o.now ?? Date.now;
    this.onCatastrophicError =
      o.onCatastrophicError ??
      ((message) => {
        process.stderr.write(`[@guardagent/sandbox] isolated-vm catastrophic error: ${message}\n`);
      });
  }

  /**
   * Run guard code once. Resolves with `ok: false` for every fault of the guard code (syntax,
   * exceptions, limits, wrong return shape); rejects only for an invalid request or a closed pool.
   */
  async run(request: RunRequest): Promise<RunResult> {
    const started = process.hrtime.bigint();
    if (this.closed) throw new SandboxPoolClosedError();
    const prepared = this.prepare(request);
    this.runs++;
    let outcome = await this.attempt(prepared, started);
    if (outcome.type === 'gone') outcome = await this.attempt(prepared, started);
    const durationUs = Math.round(Number(process.hrtime.bigint() - started) / 1000);
    return toResult(outcome, durationUs);
  }

  stats(): SandboxPoolStats {
    let isolates = this.draining.size;
    let cachedScripts = 0;
    let cachedProgramContexts = 0;
    for (const slots of this.groups.values()) {
      for (const slot of slots) {
        if (!slot) continue;
        isolates++;
        cachedScripts += slot.cachedScripts;
        cachedProgramContexts += slot.cachedProgramContexts;
      }
    }
    return {
      isolates,
      groups: this.groups.size,
      runs: this.runs,
      recycled: this.recycled,
      disposedByLimit: this.disposedByLimit,
      cachedScripts,
      cachedProgramContexts,
    };
  }

  /** Dispose every isolate. Runs still waiting on async toolbox calls end with kind 'internal'. */
  async close(): Promise<void> {
    this.closed = true;
    for (const slots of this.groups.values()) {
      for (const slot of slots) slot?.dispose();
    }
    this.groups.clear();
    for (const slot of this.draining) slot.dispose();
    this.draining.clear();
  }

  private prepare(request: RunRequest): PreparedRun {
    const parsed = parseRunRequest(request);
    const shape = toolboxShape(request.toolbox);
    const limits: ResolvedLimits = parsed.limits
      ? { ...this.defaultLimits, ...(parseLimits(parsed.limits, 'sandbox limits') as SandboxLimits) }
      : this.defaultLimits;
    // Isolates are pooled per memory size: a few sizes, however many values policies ask for.
    if (limits.memoryMb !== this.memoryMb) limits.memoryMb = snapMemoryMb(limits.memoryMb);
    return { request: { ...parsed, toolbox: request.toolbox }, shape, limits, hash: this.codeHash(parsed.code) };
  }

  // A verified program's code is the same string on every run: hash it once, not per run.
  private readonly codeHashes = new LRUCache<string, string>({ max: 256, maxSize: 16 * 1024 * 1024, sizeCalculation: (_hash, code) => Math.max(1, code.length) });
  private codeHash(code: string): string {
    let hash = this.codeHashes.get(code);
    if (hash === undefined) {
      hash = createHash('sha256').update(code).digest('hex');
      this.codeHashes.set(code, hash);
    }
    return hash;
  }

  private async attempt(run: PreparedRun, startedNs: bigint): Promise<Outcome> {
    if (this.closed) return { type: 'error', kind: 'internal', message: 'sandbox pool closed during the run', toolCalls: 0 };
    const isolate = this.pick(run.limits.memoryMb);
    isolate.inflight++;
    isolate.runs++;
    try {
      const outcome = await this.execute(isolate, run, startedNs);
      if (outcome.type === 'error' && outcome.retireIsolate) {
        if (outcome.retireIsolate === 'memory') this.disposedByLimit++;
        this.retire(isolate);
      }
      if (outcome.type === 'gone') this.retire(isolate);
      return outcome;
    } finally {
      isolate.inflight--;
      this.afterRun(isolate);
    }
  }

  private async execute(isolate: PooledIsolate, run: PreparedRun, startedNs: bigint): Promise<Outcome> {
    const { request, shape, limits, hash } = run;
    const program = request.reuse === 'program';
    const key = `${hash}|${shape.key}`;
    let context: GuardContext;
    try {
      const compiled = isolate.compile(request.code, hash);
      if ('syntaxError' in compiled) return { type: 'error', kind: 'syntax', message: compiled.syntaxError, toolCalls: 0 };
      context = program
        ? isolate.programContext(key, compiled.script, shape)
        : isolate.createFreshContext(compiled.script, shape);
    } catch (error) {
      if (error instanceof IsolateGoneSignal) return { type: 'gone', reason: error.message, toolCalls: 0 };
      return { type: 'error', kind: 'internal', message: `sandbox setup failed: ${errorMessage(error)}`, toolCalls: 0 };
    }
    try {
      return await context.execute(request.toolbox, request.input, request.output, request.context, limits, startedNs);
    } finally {
      if (program) isolate.doneWithProgramContext(key, context);
      else context.retire();
    }
  }

  /** Least-busy isolate of the group, starting the scan at a rotating cursor. */
  private pick(memoryMb: number): PooledIsolate {
    const now = this.now();
    this.groupUsedAt.set(memoryMb, now);
    this.freeIdleGroups(now);
    let slots = this.groups.get(memoryMb);
    if (!slots) {
      slots = new Array<PooledIsolate | null>(this.size).fill(null);
      this.groups.set(memoryMb, slots);
    }
    this.cursor = (this.cursor + 1) % this.size;
    let best = -1;
    for (let i = 0; i < this.size; i++) {
      const index = (this.cursor + i) % this.size;
      const slot = slots[index];
      if (!slot || slot.isDisposed) {
        if (slot) this.retire(slot);
        best = index;
        break;
      }
      if (slot.inflight === 0) {
        best = index;
        break;
      }
      if (best < 0 || slot.inflight < (slots[best] as PooledIsolate).inflight) best = index;
    }
    let chosen = slots[best];
    if (!chosen) {
      chosen = new PooledIsolate({
        memoryMb,
        maxCachedScripts: this.maxCachedScripts,
        maxProgramContexts: this.maxProgramContexts,
        maxRunsPerProgramContext: this.maxRunsPerProgramContext,
        onCatastrophicError: this.onCatastrophicError,
      });
      slots[best] = chosen;
    }
    return chosen;
  }

  private afterRun(isolate: PooledIsolate): void {
    if (!isolate.retired) {
      if (isolate.isDisposed || isolate.runs >= this.maxRunsPerIsolate) {
        this.retire(isolate);
      } else if (isolate.runs % HEAP_CHECK_EVERY === 0) {
        try {
          if (isolate.heapRatio() > this.maxHeapRatio) this.retire(isolate);
        } catch {
          this.retire(isolate);
        }
      }
    }
    if (isolate.retired && isolate.inflight === 0 && this.draining.delete(isolate)) isolate.dispose();
  }

  /** Groups of a non-default memory size unused for idleGroupMs are retired with their isolates. */
  private freeIdleGroups(now: number): void {
    for (const [memoryMb, usedAt] of this.groupUsedAt) {
      if (memoryMb === this.memoryMb || now - usedAt < this.idleGroupMs) continue;
      const slots = this.groups.get(memoryMb) ?? [];
      for (const slot of slots) if (slot) this.retire(slot);
      this.groups.delete(memoryMb);
      this.groupUsedAt.delete(memoryMb);
    }
  }

  /** Take the isolate out of service; it is disposed once its last run ended. */
  private retire(isolate: PooledIsolate): void {
    if (isolate.retired) return;
    isolate.retired = true;
    this.recycled++;
    for (const slots of this.groups.values()) {
      const index = slots.indexOf(isolate);
      if (index >= 0) slots[index] = null;
    }
    if (isolate.inflight === 0) isolate.dispose();
    else this.draining.add(isolate);
  }
}

function toResult(outcome: Outcome, durationUs: number): RunResult {
  if (outcome.type === 'done') {
    const checked = checkVerdict(outcome.json);
    if (checked.ok) return { ok: true, verdict: checked.verdict, durationUs, toolCalls: outcome.toolCalls };
    return { ok: false, error: { kind: 'invalid-return', message: checked.message }, durationUs, toolCalls: outcome.toolCalls };
  }
  if (outcome.type === 'gone') {
    return {
      ok: false,
      error: { kind: 'internal', message: `the sandbox isolate was disposed twice under this run (${outcome.reason})` },
      durationUs,
      toolCalls: outcome.toolCalls,
    };
  }
  return { ok: false, error: { kind: outcome.kind, message: outcome.message }, durationUs, toolCalls: outcome.toolCalls };
}
