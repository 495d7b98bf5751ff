import type ivm from 'isolated-vm';
import { isolatedVm } from './isolated-vm';
import { errorMessage } from '@guardagent/errors';
import { GuardContext } from './guard-context';
import { HARNESS_SOURCE } from './harness-source';
import { LRUCache } from 'lru-cache';
import { IsolateGoneSignal } from './outcome';
import type { ToolboxShape } from './run-request-schema';

/** A compiled guard, or why it does not compile. Cached per isolate by code hash. */
export type CompiledGuard = { script: ivm.Script } | { syntaxError: string };

export interface PooledIsolateOptions {
  memoryMb: number;
  maxCachedScripts: number;
  maxProgramContexts: number;
  maxRunsPerProgramContext: number;
  onCatastrophicError: (message: string) => void;
}

const CHECK_TIMEOUT_MS = 2000;

/**
 * The wrapper turns the code into the body of an async function. `lineOffset: -1` makes line 1
 * of the guard code line 1 in messages and stacks.
 */
function wrap(code: string): string {
  return `(async function (input, output, context) {"use strict";\n${code}\n})`;
}

function formatSyntaxError(message: string): string {
  const match = / \[guard\.js:(\d+):(\d+)\]$/.exec(message);
  const text = match ? message.slice(0, match.index) : message;
  const where = match ? ` (guard code line ${match[1]}, column ${match[2]})` : '';
  return `SyntaxError: ${text}${where}`;
}

/** One isolate of the pool with its compiled-script cache and hardened program contexts. */
export class PooledIsolate {
  readonly isolate: ivm.Isolate;
  runs = 0;
  inflight = 0;
  retired = false;
  private readonly harness: ivm.Script;
  private checker: ivm.Reference<(body: string) => string> | undefined;
  private readonly scripts: LRUCache<string, CompiledGuard>;
  private readonly programs: LRUCache<string, GuardContext>;

  constructor(private readonly options: PooledIsolateOptions) {
    this.isolate = new isolatedVm.Isolate({
      memoryLimit: options.memoryMb,
      onCatastrophicError: options.onCatastrophicError,
    });
    this.harness = this.isolate.compileScriptSync(HARNESS_SOURCE, { filename: 'sandbox-harness.js' });
    // dispose runs on eviction, delete, replacement and clear: isolate resources are freed with them.
    this.scripts = new LRUCache<string, CompiledGuard>({
      max: options.maxCachedScripts,
      dispose: (compiled) => {
        if ('script' in compiled) safely(() => compiled.script.release());
      },
    });
    this.programs = new LRUCache<string, GuardContext>({ max: options.maxProgramContexts, dispose: (context) => context.retire() });
  }

  get isDisposed(): boolean {
    return this.isolate.isDisposed;
  }

  get cachedScripts(): number {
    return this.scripts.size;
  }

  get cachedProgramContexts(): number {
    return this.programs.size;
  }

  /** Compile (or fetch) the guard. Throws IsolateGoneSignal if the isolate died meanwhile. */
  compile(code: string, hash: string): CompiledGuard {
    const cached = this.scripts.get(hash);
    if (cached) return cached;
    this.assertAlive();
    let compiled: CompiledGuard;
    try {
      const script = this.isolate.compileScriptSync(wrap(code), { filename: 'guard.js', lineOffset: -1 });
      const problem = this.checkIsFunctionBody(code);
      if (problem) {
        script.release();
        compiled = {
          syntaxError: `SyntaxError: guard code must be the body of a function; it cannot close the wrapper function early (${problem})`,
        };
      } else {
        compiled = { script };
      }
    } catch (error) {
      this.assertAlive();
      compiled = { syntaxError: formatSyntaxError(errorMessage(error)) };
    }
    this.scripts.set(hash, compiled);
    return compiled;
  }

  /** A new, unhardened context for one 'fresh' run; the caller retires it after the run. */
  createFreshContext(script: ivm.Script, shape: ToolboxShape): GuardContext {
    return this.newContext(script, shape, false);
  }

  /**
   * The hardened context of this program (code hash + toolbox names), created on first use.
   * Concurrent runs share it; call `doneWithProgramContext` after each run.
   */
  programContext(key: string, script: ivm.Script, shape: ToolboxShape): GuardContext {
    const cached = this.programs.get(key);
    if (cached && !cached.broken && cached.runs < this.options.maxRunsPerProgramContext) return cached;
    const fresh = this.newContext(script, shape, true);
    this.programs.set(key, fresh); // retires the replaced context once its runs ended
    return fresh;
  }

  doneWithProgramContext(key: string, context: GuardContext): void {
    if (!context.broken && context.runs < this.options.maxRunsPerProgramContext) return;
    if (this.programs.peek(key) === context) this.programs.delete(key);
    else context.retire();
  }

  /** used / limit of the V8 heap, counting external (ArrayBuffer) memory too. */
  heapRatio(): number {
    const stats = this.isolate.getHeapStatisticsSync();
    return (stats.used_heap_size + stats.externally_allocated_size) / stats.heap_size_limit;
  }

  dispose(): void {
    safely(() => this.programs.clear());
    safely(() => this.scripts.clear());
    if (!this.isolate.isDisposed) safely(() => this.isolate.dispose());
  }

  private newContext(script: ivm.Script, shape: ToolboxShape, harden: boolean): GuardContext {
    this.assertAlive();
    try {
      return new GuardContext(this.isolate, this.isolate.createContextSync(), this.harness, script, shape, harden);
    } catch (error) {
      // Setup runs no guard code, so an isolate that died here died of earlier runs.
      this.assertAlive();
      throw error;
    }
  }

  /**
   * Parse the code with the AsyncFunction constructor in a context where no guard code ever
   * runs. That constructor parses exactly one function body, so code like `}); evil(); (function(){`
   * that would break out of the wrapper (and run at definition time, outside any run) fails here.
   */
  private checkIsFunctionBody(code: string): string {
    if (!this.checker) {
      const context = this.isolate.createContextSync();
      this.checker = context.evalClosureSync(
        `const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
         return function check(body) {
           try { new AsyncFunction('input', 'output', 'context', body); return ''; }
           catch (e) { return String(e && e.message); }
         };`,
        [],
        { result: { reference: true } },
      ) as ivm.Reference<(body: string) => string>;
    }
    return this.checker.applySync(undefined, [`"use strict";\n${code}`], { timeout: CHECK_TIMEOUT_MS }) as string;
  }

  private assertAlive(): void {
    if (this.isolate.isDisposed) throw new IsolateGoneSignal('isolate disposed before the guard ran');
  }
}

function safely(action: () => void): void {
  try {
    action();
  } catch {
    // Releasing handles of a disposed isolate throws; there is nothing left to free.
  }
}
