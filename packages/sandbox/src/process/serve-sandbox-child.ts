import { errorMessage } from '@guardagent/errors';
import { isolatedVmPackage } from '../isolated-vm';
import { SandboxPool } from '../sandbox-pool';
import type { RunResult, SandboxPoolOptions, SandboxToolboxFunction } from '../sandbox-types';
import { MAX_RUNS_PER_MESSAGE, ParentMessageSchema, type ChildMessage, type WireRunRequest } from './messages';

/** Longest a finished run's result waits to go with others (ms). */
const RESULTS_HOLD_MS = 2;

/** Calls a function that lives in the executor (e.g. the LLM classifier with its Redis cache). */
export type HostCall = (name: string, args: unknown[]) => Promise<unknown>;

/**
 * Builds the toolbox of one run inside the worker. `callHost` is bound to that run, so the
 * executor knows which run waits on which host call (see SandboxProcessPool on crashes).
 */
export type ToolboxBuilder = (packs: readonly string[], tenant: string, callHost: HostCall) => SandboxToolboxFunction[];

/** A guard run of the worker's warm-up: no tenant, no host calls, the default limits unless given. */
export interface WarmUpRun {
  code: string;
  packs: readonly string[];
  input?: unknown;
  output?: unknown;
  context?: unknown;
  reuse?: 'fresh' | 'program';
}

export interface SandboxChildOptions {
  buildToolbox: ToolboxBuilder;
  /** The in-process engine's options; one isolate per memory size (the executor runs one worker per core). */
  pool?: SandboxPoolOptions;
  /**
   * Makes the worker warm before it says it is ready: load every toolbox pack's data (WordNet,
   * indexes, parsers) and run guard code in an isolate (`run`), so that the first run the executor
   * sends costs what its hundredth does. A warm-up that throws is reported on stderr and the
   * worker serves all the same (the runs that need what failed to load then fail on their own).
   */
  warmUp?: (run: (request: WarmUpRun) => Promise<RunResult>) => Promise<void> | void;
}

/**
 * The body of a sandbox worker process: runs guard code for its executor, runs in (several per
 * message), one result message per run out, over the IPC channel. Nothing here trusts the guard code; the executor trusts
 * nothing the worker says either (it validates every message and owns every deadline).
 * Exits when the executor goes away (IPC disconnect), so no worker outlives its executor.
 */
export function serveSandboxChild(options: SandboxChildOptions): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error('serveSandboxChild must run in a process forked with an IPC channel');
  const pool = new SandboxPool({ size: 1, ...options.pool });
  const hostCalls = new Map<number, { runId: number; resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextCallId = 1;
  /** Guard code by the number the executor sent it under (it decides what is kept: see SentCode). */
  const codes = new Map<number, string>();
  // Runs start one at a time, in the order they were sent: the next when no started run is
  // executing (each has ended or waits on a host call). The executor keeps the same account, so
  // it knows which run is executing when this process dies, and starts each run's deadline when
  // the run starts here, not while it waits behind another.
  const waiting: Array<{ id: number; code: string | undefined; request: WireRunRequest }> = [];
  /** Host calls each started, unfinished run waits on. */
  const parked = new Map<number, number>();
  let executing = 0;

  const post = (message: ChildMessage) => {
    send(message);
  };

  // Results of runs that ended close together go in one message (a message costs tens of µs
  // whatever it carries). They are held only while the next run starts at once and the held runs
  // started less than RESULTS_HOLD_MS ago: so the executor's view of which run is executing lags
  // by less than that (see SandboxProcessPool, "Runs in one message").
  let held: Array<{ id: number; result: RunResult }> = [];
  /** When the oldest held run started (performance.now() ms). */
  let heldSince = 0;
  const startedAt = new Map<number, number>();
  const flush = () => {
    if (held.length === 0) return;
    // The worker's memory after these runs: past its bound the executor recycles it (cheap: one read of /proc).
    post({ t: 'results', results: held, rss: process.memoryUsage.rss() });
    held = [];
  };

  const startNext = () => {
    const next = executing === 0 ? waiting.shift() : undefined;
    const now = performance.now();
    if (!next || now - heldSince >= RESULTS_HOLD_MS || held.length >= MAX_RUNS_PER_MESSAGE) flush();
    if (!next) return;
    executing++;
    parked.set(next.id, 0);
    startedAt.set(next.id, now);
    void runOne(next.id, next.code, next.request);
  };

  const runOne = async (id: number, code: string | undefined, request: WireRunRequest) => {
    let result: RunResult;
    try {
      if (code === undefined) throw new Error(`no guard code under number ${request.code.id} (the executor and this worker disagree on what was sent)`);
      const callHost: HostCall = (name, args) =>
        new Promise((resolve, reject) => {
          const calls = parked.get(id);
          // A call left behind by a run that has ended (its promise was never awaited).
          if (calls === undefined) return reject(new Error('the guard run has ended'));
          const callId = nextCallId++;
          hostCalls.set(callId, { runId: id, resolve, reject });
          parked.set(id, calls + 1);
          if (calls === 0) {
            executing--;
            flush();
            // The isolate is idle while this run waits: the next run may start (not from inside
            // this toolbox call, which the isolate is still in).
            setImmediate(startNext);
          }
          post({ t: 'host', runId: id, callId, name, args });
        });
      const toolbox = options.buildToolbox(request.packs, request.tenant, callHost);
      result = await pool.run({
        code,
        input: request.input,
        output: request.output,
        context: request.context,
        toolbox,
        ...(request.limits ? { limits: request.limits } : {}),
        ...(request.reuse ? { reuse: request.reuse } : {}),
      });
    } catch (error) {
      result = { ok: false, error: { kind: 'internal', message: `sandbox worker: ${errorMessage(error)}` }, durationUs: 0, toolCalls: 0 };
    }
    if (held.length === 0) heldSince = startedAt.get(id) ?? 0;
    startedAt.delete(id);
    held.push({ id, result });
    // A run that ended while a host call was still out was no longer counted as executing.
    if ((parked.get(id) ?? 0) === 0) executing--;
    parked.delete(id);
    startNext();
  };

  process.on('message', (raw: unknown) => {
    const parsed = ParentMessageSchema.safeParse(raw);
    // Only our executor holds the other end of the channel; a message we cannot read is a bug
    // there, and guessing would be worse than dropping it (the executor's deadline ends the run).
    if (!parsed.success) return;
    const message = parsed.data;
    if (message.t === 'run') {
      // Code is looked up as the message arrives (this message's forget list, or a later one's,
      // may drop it before the run starts).
      for (const run of message.runs) {
        if (run.request.code.text !== undefined) codes.set(run.request.code.id, run.request.code.text);
        waiting.push({ id: run.id, code: codes.get(run.request.code.id), request: run.request });
      }
      for (const forgotten of message.forget ?? []) codes.delete(forgotten);
      startNext();
      return;
    }
    const call = hostCalls.get(message.callId);
    if (!call) return;
    hostCalls.delete(message.callId);
    const calls = parked.get(call.runId);
    if (calls !== undefined) {
      parked.set(call.runId, calls - 1);
      if (calls === 1) executing++; // the run resumes
    }
    if (message.ok) call.resolve(message.value);
    else call.reject(new Error(message.error ?? 'host call failed'));
  });
  process.on('disconnect', () => {
    void pool.close().finally(() => process.exit(0));
  });
  void warmUp(options, pool).then((warmMs) => {
    post({ t: 'ready', pid: process.pid, isolatedVm: isolatedVmPackage, warmMs, rss: process.memoryUsage.rss() });
  });
}

/** Run the warm-up (see SandboxChildOptions.warmUp); how long it took (ms). */
async function warmUp(options: SandboxChildOptions, pool: SandboxPool): Promise<number> {
  const started = performance.now();
  if (!options.warmUp) return 0;
  const noHost: HostCall = () => Promise.reject(new Error('no host calls while the worker warms up'));
  try {
    await options.warmUp((request) =>
      pool.run({
        code: request.code,
        input: request.input ?? '',
        output: request.output ?? '',
        context: request.context ?? {},
        toolbox: options.buildToolbox(request.packs, '', noHost),
        reuse: request.reuse ?? 'fresh',
      }),
    );
  } catch (error) {
    process.stderr.write(`sandbox worker ${process.pid}: warm-up failed, serving cold: ${errorMessage(error)}\n`);
  }
  return performance.now() - started;
}
