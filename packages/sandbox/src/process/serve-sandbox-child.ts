import { errorMessage } from '@guardagent/errors';
import { isolatedVmPackage } from '../isolated-vm';
import { SandboxPool } from '../sandbox-pool';
import type { RunResult, SandboxPoolOptions, SandboxToolboxFunction } from '../sandbox-types';
import { ParentMessageSchema, type ChildMessage, type WireRunRequest } from './messages';

/** Calls a function that lives in the executor (e.g. the LLM classifier with its Redis cache). */
export type HostCall = (name: string, args: unknown[]) => Promise<unknown>;

/**
 * Builds the toolbox of one run inside the worker. `callHost` is bound to that run, so the
 * executor knows which run waits on which host call (see SandboxProcessPool on crashes).
 */
export type ToolboxBuilder = (packs: readonly string[], tenant: string, callHost: HostCall) => SandboxToolboxFunction[];

export interface SandboxChildOptions {
  buildToolbox: ToolboxBuilder;
  /** The in-process engine's options; one isolate per memory size (the executor runs one worker per core). */
  pool?: SandboxPoolOptions;
}

/**
 * The body of a sandbox worker process: runs guard code for its executor, one message at a time
 * in, results out, over the IPC channel. Nothing here trusts the guard code; the executor trusts
 * nothing the worker says either (it validates every message and owns every deadline).
 * Exits when the executor goes away (IPC disconnect), so no worker outlives its executor.
 */
export function serveSandboxChild(options: SandboxChildOptions): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error('serveSandboxChild must run in a process forked with an IPC channel');
  const pool = new SandboxPool({ size: 1, ...options.pool });
  const hostCalls = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextCallId = 1;
  /** Guard code by the number the executor sent it under (it decides what is kept: see SentCode). */
  const codes = new Map<number, string>();

  const post = (message: ChildMessage) => {
    send(message);
  };

  const runOne = async (id: number, request: WireRunRequest) => {
    let result: RunResult;
    try {
      const code = codes.get(request.code.id);
      if (code === undefined) throw new Error(`no guard code under number ${request.code.id} (the executor and this worker disagree on what was sent)`);
      const callHost: HostCall = (name, args) =>
        new Promise((resolve, reject) => {
          const callId = nextCallId++;
          hostCalls.set(callId, { resolve, reject });
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
    post({ t: 'result', id, result });
  };

  process.on('message', (raw: unknown) => {
    const parsed = ParentMessageSchema.safeParse(raw);
    // Only our executor holds the other end of the channel; a message we cannot read is a bug
    // there, and guessing would be worse than dropping it (the executor's deadline ends the run).
    if (!parsed.success) return;
    const message = parsed.data;
    if (message.t === 'run') {
      for (const forgotten of message.forget ?? []) codes.delete(forgotten);
      if (message.request.code.text !== undefined) codes.set(message.request.code.id, message.request.code.text);
      void runOne(message.id, message.request);
      return;
    }
    const waiting = hostCalls.get(message.callId);
    if (!waiting) return;
    hostCalls.delete(message.callId);
    if (message.ok) waiting.resolve(message.value);
    else waiting.reject(new Error(message.error ?? 'host call failed'));
  });
  process.on('disconnect', () => {
    void pool.close().finally(() => process.exit(0));
  });
  post({ t: 'ready', pid: process.pid, isolatedVm: isolatedVmPackage });
}
