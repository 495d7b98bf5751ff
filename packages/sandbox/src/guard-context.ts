import type ivm from 'isolated-vm';
import { isolatedVm } from './isolated-vm';
import { errorMessage } from '@guardagent/errors';
import type { Outcome } from './outcome';
import type { ResolvedLimits, SandboxToolboxFunction } from './sandbox-types';
import type { ToolboxShape } from './run-request-schema';

/** The run state the harness hands back (see harness-source.ts). */
interface HarnessState {
  s: 'pending' | 'done' | 'error';
  r?: string;
  k?: 'thrown' | 'reference' | 'type' | 'invalid-return' | 'result-too-large';
  m?: string;
}

type Entry = ivm.Reference<(...args: unknown[]) => HarnessState>;

/** One run in progress on a context: its toolbox, counters and deadline. */
class ActiveRun {
  toolCalls = 0;
  cpuUsedMs = 0;
  /** Ids of this run's async toolbox calls not settled yet. */
  readonly pendingIds = new Set<number>();
  finished = false;
  deadline: NodeJS.Timeout | undefined;
  resolve!: (outcome: Outcome) => void;
  readonly done = new Promise<Outcome>((resolve) => {
    this.resolve = resolve;
  });

  constructor(
    readonly toolbox: SandboxToolboxFunction[],
    readonly limits: ResolvedLimits,
  ) {}

  finish(outcome: Outcome): void {
    if (this.finished) return;
    this.finished = true;
    if (this.deadline) clearTimeout(this.deadline);
    this.resolve(outcome);
  }
}

const SETUP_TIMEOUT_MS = 5000;
/** Toolbox calls run on the host: bound what one run can make it do (a loop of un-awaited calls). */
const MAX_TOOL_CALLS_PER_RUN = 10_000;
const MAX_PENDING_ASYNC_CALLS = 64;

/**
 * A V8 context holding one guard function, its toolbox globals and the harness entry point.
 * Guard code only executes inside `step` (one synchronous slice on behalf of one run), so host
 * callbacks attribute toolbox calls to that slice's run. That lets one hardened program context
 * serve concurrent runs waiting on async calls, each with its own toolbox array (same names).
 */
export class GuardContext {
  /** Runs started here (for recycling). */
  runs = 0;
  /** Set after a timeout or memory error: the context must not serve another run. */
  broken = false;
  private active = 0;
  private retired = false;
  private readonly context: ivm.Context;
  private readonly entry: Entry;
  /** The run whose guard code executes right now (set only during `applySync`). */
  private sliceOwner: ActiveRun | null = null;
  private nextCallId = 1;
  private released = false;

  /** Takes ownership of `context` (released on failure too). */
  constructor(
    private readonly isolate: ivm.Isolate,
    context: ivm.Context,
    harness: ivm.Script,
    guard: ivm.Script,
    shape: ToolboxShape,
    harden: boolean,
  ) {
    try {
      const setup = harness.runSync(context, { reference: true, timeout: SETUP_TIMEOUT_MS }) as ivm.Reference;
      // Evaluating the wrapper only creates the function: the code was checked to be a function body.
      const guardFn = guard.runSync(context, { reference: true, timeout: SETUP_TIMEOUT_MS }) as ivm.Reference;
      const spec = JSON.stringify({ names: shape.names, async: shape.asyncFlags, harden });
      const hostCall = new isolatedVm.Callback((index: number, json: string) => this.callSync(index, json));
      const hostStart = new isolatedVm.Callback((index: number, json: string) => this.startAsync(index, json));
      this.entry = setup.applySync(undefined, [spec, hostCall, hostStart, guardFn.derefInto()], {
        result: { reference: true },
        timeout: SETUP_TIMEOUT_MS,
      }) as Entry;
      setup.release();
      guardFn.release();
    } catch (error) {
      context.release();
      throw error;
    }
    this.context = context;
  }

  /**
   * Run the guard once. Resolves when it settled, failed, or hit a limit; never rejects for guard
   * faults. The wall-clock deadline counts from `startedNs` (when the caller asked for the run).
   */
  execute(
    toolbox: SandboxToolboxFunction[],
    input: unknown,
    output: unknown,
    ctx: unknown,
    limits: ResolvedLimits,
    startedNs: bigint = process.hrtime.bigint(),
  ): Promise<Outcome> {
    const run = new ActiveRun(toolbox, limits);
    this.runs++;
    this.active++;
    this.step(run, [0, input, output, ctx, limits.maxResultBytes]);
    if (!run.finished) {
      // No guard code runs while the deadline is pending (the host drives every slice), so
      // passing it leaves the isolate and the context healthy: only this run is abandoned.
      run.deadline = setTimeout(() => {
        run.finish({
          type: 'error',
          kind: 'timeout',
          message: `guard code did not finish within the ${limits.wallMs} ms wall-clock deadline (still awaiting ${run.pendingIds.size} toolbox call(s))`,
          toolCalls: run.toolCalls,
        });
      }, Math.max(0, limits.wallMs - Number(process.hrtime.bigint() - startedNs) / 1e6));
    }
    return run.done.finally(() => {
      if (run.pendingIds.size > 0) this.forget(run);
      this.active--;
      if (this.retired && this.active === 0) this.release();
    });
  }

  private forget(run: ActiveRun): void {
    if (this.released || this.isolate.isDisposed) return;
    try {
      this.entry.applySync(undefined, [2, [...run.pendingIds]], { arguments: { copy: true }, timeout: SETUP_TIMEOUT_MS });
    } catch {
      // Only bookkeeping: at worst the resolvers stay until the context is recycled.
    }
    run.pendingIds.clear();
  }

  /** Take no new runs; free the V8 context once the runs in flight ended. */
  retire(): void {
    this.retired = true;
    if (this.active === 0) this.release();
  }

  private release(): void {
    if (this.released) return;
    this.released = true;
    try {
      this.entry.release();
      this.context.release();
    } catch {
      // The isolate is already disposed; nothing is left to free.
    }
  }

  /** One synchronous slice of guard execution (the start, or the continuation after a settle). */
  private step(run: ActiveRun, args: unknown[]): void {
    if (this.isolate.isDisposed) {
      run.finish({ type: 'gone', reason: 'isolate disposed while the run was waiting', toolCalls: run.toolCalls });
      return;
    }
    const remaining = run.limits.cpuMs - run.cpuUsedMs;
    if (remaining <= 0) {
      run.finish(cpuTimeout(run));
      return;
    }
    const started = process.hrtime.bigint();
    let state: HarnessState | null;
    this.sliceOwner = run;
    try {
      state = this.entry.applySync(undefined, args, {
        arguments: { copy: true },
        result: { copy: true },
        timeout: Math.max(1, Math.ceil(remaining)),
      });
    } catch (error) {
      run.finish(this.hostFailure(run, error));
      return;
    } finally {
      this.sliceOwner = null;
      run.cpuUsedMs += Number(process.hrtime.bigint() - started) / 1e6;
    }
    // null: the harness no longer knows the call (cannot happen while the run is live).
    if (state) this.consume(run, state);
  }

  private consume(run: ActiveRun, state: HarnessState): void {
    if (state.s === 'done') {
      run.finish({ type: 'done', json: state.r, toolCalls: run.toolCalls });
    } else if (state.s === 'error') {
      run.finish({ type: 'error', kind: state.k ?? 'thrown', message: state.m ?? 'guard code failed', toolCalls: run.toolCalls });
    } else if (run.pendingIds.size === 0) {
      // Microtasks have drained and no toolbox call is pending: nothing can ever resume the guard.
      run.finish({
        type: 'error',
        kind: 'timeout',
        message: 'guard code awaits a promise that can never settle (no toolbox call is pending)',
        toolCalls: run.toolCalls,
      });
    }
  }

  private hostFailure(run: ActiveRun, error: unknown): Outcome {
    const message = errorMessage(error);
    if (this.isolate.isDisposed) {
      // This run was the one executing when V8 hit the limit: it is the culprit.
      this.broken = true;
      return {
        type: 'error',
        kind: 'memory',
        message: `guard code exceeded the isolate memory limit (${message})`,
        toolCalls: run.toolCalls,
        retireIsolate: 'memory',
      };
    }
    if (/timed out/i.test(message)) {
      this.broken = true;
      return cpuTimeout(run);
    }
    if (/could not be cloned|DataCloneError|#<Object> could not/i.test(message)) {
      return { type: 'error', kind: 'internal', message: `input, output and context must be plain data: ${message}`, toolCalls: run.toolCalls };
    }
    this.broken = true;
    return { type: 'error', kind: 'internal', message: `sandbox failure: ${message}`, toolCalls: run.toolCalls };
  }

  private toolFor(index: number): { run: ActiveRun; fn: SandboxToolboxFunction } {
    const run = this.sliceOwner;
    if (!run || run.finished) throw new Error('no run is active in this context');
    const fn = run.toolbox[index];
    if (!fn) throw new Error(`no toolbox function #${index}`);
    if (run.toolCalls >= MAX_TOOL_CALLS_PER_RUN) throw new Error(`toolbox call limit reached (${MAX_TOOL_CALLS_PER_RUN} per run)`);
    run.toolCalls++;
    return { run, fn };
  }

  /** Sync toolbox call from the isolate: JSON text in, `[ok, jsonOrMessage]` out. */
  private callSync(index: number, json: string): [boolean, string | undefined] {
    try {
      const { fn } = this.toolFor(index);
      const value = fn.fn(...(JSON.parse(json) as unknown[]));
      if (isThenable(value)) {
        return [false, 'declared sync but returned a Promise (mark it async: true)'];
      }
      return [true, value === undefined ? undefined : JSON.stringify(value)];
    } catch (error) {
      return [false, errorMessage(error)];
    }
  }

  /** Async toolbox call: start it on the host, return an id; the result re-enters through `step`. */
  private startAsync(index: number, json: string): number {
    const pending = this.sliceOwner?.pendingIds.size ?? 0;
    if (pending >= MAX_PENDING_ASYNC_CALLS) {
      throw new Error(`too many async toolbox calls pending (${MAX_PENDING_ASYNC_CALLS}); await some first`);
    }
    const { run, fn } = this.toolFor(index);
    const id = this.nextCallId++;
    run.pendingIds.add(id);
    void invokeAsync(fn, json).then(([ok, payload]) => {
      if (run.finished || !run.pendingIds.delete(id)) return;
      this.step(run, [1, id, ok, payload]);
    });
    return id;
  }
}

function cpuTimeout(run: ActiveRun): Outcome {
  return {
    type: 'error',
    kind: 'timeout',
    message: `guard code exceeded its CPU time limit of ${run.limits.cpuMs} ms`,
    toolCalls: run.toolCalls,
    retireIsolate: 'timeout',
  };
}

/** Runs an async toolbox function outside the isolate's call stack; never rejects. */
async function invokeAsync(fn: SandboxToolboxFunction, json: string): Promise<[boolean, string | undefined]> {
  try {
    await null;
    const value = await fn.fn(...(JSON.parse(json) as unknown[]));
    return [true, value === undefined ? undefined : JSON.stringify(value)];
  } catch (error) {
    return [false, errorMessage(error)];
  }
}

function isThenable(value: unknown): boolean {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
