import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SandboxPool, type SandboxToolboxFunction } from '../src/index';
import { errorOf, request, testToolbox, verdictOf } from './run-helpers';

const pool = new SandboxPool({ size: 2, defaultLimits: { cpuMs: 500 } });
afterAll(() => pool.close());

const canary = join(tmpdir(), `guardagent-sandbox-canary-${process.pid}`);
const host = globalThis as Record<string, unknown>;

/** Guard code that, given whatever `expr` yields, tries to act on the host with it. */
function escapeAttempt(expr: string): string {
  return `
    const p = ${expr};
    p.__guardPwned = true;
    if (p.mainModule) p.mainModule.require('fs').writeFileSync(${JSON.stringify(canary)}, 'pwned');
    if (p.getBuiltinModule) p.getBuiltinModule('fs').writeFileSync(${JSON.stringify(canary)}, 'pwned');
    return { deny: false, details: { got: typeof p } };`;
}

function assertNoHostEffect(): void {
  expect(existsSync(canary)).toBe(false);
  expect((process as unknown as Record<string, unknown>).__guardPwned).toBeUndefined();
  expect(host.__guardPwned).toBeUndefined();
}

beforeEach(() => rmSync(canary, { force: true }));

describe('hostile code cannot reach the host', () => {
  it('has no process, require, module, timers or network globals', async () => {
    const result = await pool.run(
      request(`return { deny: false, details: {
        process: typeof process, require: typeof require, module: typeof module, global: typeof global,
        Buffer: typeof Buffer, setTimeout: typeof setTimeout, fetch: typeof fetch, queueMicrotask: typeof queueMicrotask } };`),
    );
    expect(verdictOf(result).details).toEqual({
      process: 'undefined',
      require: 'undefined',
      module: 'undefined',
      global: 'undefined',
      Buffer: 'undefined',
      setTimeout: 'undefined',
      fetch: 'undefined',
      queueMicrotask: 'undefined',
    });
  });

  it.each([
    ['process', escapeAttempt('process'), 'reference'],
    ['require', escapeAttempt(`require('child_process')`), 'reference'],
    ['this.constructor.constructor', escapeAttempt(`this.constructor.constructor('return process')()`), 'type'],
    ['input.constructor.constructor', escapeAttempt(`input.constructor.constructor('return process')()`), 'reference'],
    ['toolbox fn constructor', escapeAttempt(`add.constructor.constructor('return process')()`), 'reference'],
    ['toolbox error constructor', escapeAttempt(`(() => { try { failSync(); } catch (e) { return e.constructor.constructor('return process')(); } })()`), 'reference'],
    ['Function("return this")', escapeAttempt(`Function('return this')().process`), 'type'],
    ['async function constructor', escapeAttempt(`await (async () => {}).constructor('return process')()`), 'reference'],
  ])('%s yields no host object', async (_name, code, kind) => {
    const error = errorOf(await pool.run(request(code, { toolbox: testToolbox() })));
    expect(error.kind).toBe(kind);
    assertNoHostEffect();
  });

  it("import('fs') is refused", async () => {
    const error = errorOf(await pool.run(request(escapeAttempt(`await import('fs')`))));
    expect(error.kind).toBe('thrown');
    expect(error.message).toContain('Not supported');
    assertNoHostEffect();
  });

  it('exposes only ECMAScript globals plus the toolbox', async () => {
    const allowed = new Set([
      'Object', 'Function', 'Array', 'Number', 'parseFloat', 'parseInt', 'Infinity', 'NaN', 'undefined', 'Boolean',
      'String', 'Symbol', 'Date', 'Promise', 'RegExp', 'Error', 'AggregateError', 'EvalError', 'RangeError',
      'ReferenceError', 'SyntaxError', 'TypeError', 'URIError', 'globalThis', 'JSON', 'Math', 'Intl', 'ArrayBuffer',
      'Uint8Array', 'Int8Array', 'Uint16Array', 'Int16Array', 'Uint32Array', 'Int32Array', 'Float32Array',
      'Float64Array', 'Uint8ClampedArray', 'BigUint64Array', 'BigInt64Array', 'Float16Array', 'DataView', 'Map',
      'BigInt', 'Set', 'WeakMap', 'WeakSet', 'Proxy', 'Reflect', 'decodeURI', 'decodeURIComponent', 'encodeURI',
      'encodeURIComponent', 'escape', 'unescape', 'eval', 'isFinite', 'isNaN', 'console', 'Iterator',
      'SuppressedError', 'DisposableStack', 'AsyncDisposableStack',
      ...testToolbox().map((f) => f.name),
    ]);
    const result = await pool.run(request(`return { deny: false, details: { names: Reflect.ownKeys(globalThis).map(String) } };`, { toolbox: testToolbox() }));
    const names = verdictOf(result).details.names as string[];
    expect(names.filter((n) => !allowed.has(n) && !n.startsWith('Symbol('))).toEqual([]);
    for (const gone of ['SharedArrayBuffer', 'Atomics', 'WebAssembly', 'FinalizationRegistry', 'WeakRef']) {
      expect(names).not.toContain(gone);
    }
    expect(names).toContain('lookupRole');
  });

  it('stack frames expose no functions or receivers', async () => {
    const result = await pool.run(
      request(`
        Error.prepareStackTrace = (e, frames) => frames.map((f) => typeof f.getFunction() + '/' + typeof f.getThis());
        const frames = new Error('x').stack;
        return { deny: false, details: { frames: Array.isArray(frames) ? frames : [] } };`),
    );
    const frames = verdictOf(result).details.frames as string[];
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) expect(frame).toBe('undefined/undefined');
  });

  it('toolbox functions receive plain host copies, never isolate objects', async () => {
    const seen: unknown[] = [];
    const toolbox: SandboxToolboxFunction[] = [
      {
        name: 'inspect',
        async: false,
        fn: (value: unknown) => {
          seen.push(value);
          return Object.getPrototypeOf(value) === Object.prototype;
        },
      },
    ];
    const result = await pool.run(
      request(`return { deny: !inspect({ a: 1, f: () => 1, nested: { d: new Date(0) } }), details: {} };`, { toolbox }),
    );
    expect(verdictOf(result).deny).toBe(false);
    expect(seen).toEqual([{ a: 1, nested: { d: '1970-01-01T00:00:00.000Z' } }]);
  });

  it('a getter bomb in the returned value runs inside the isolate under the CPU limit', async () => {
    const error = errorOf(await pool.run(request(`return { deny: false, get details() { for (;;) {} } };`)));
    expect(error.kind).toBe('timeout');
    expect(verdictOf(await pool.run(request('return { deny: true };'))).deny).toBe(true);
  });
});

describe('hostile code cannot flood the host through the toolbox', () => {
  it('caps pending async calls and total calls per run', async () => {
    const calls: string[] = [];
    const pending = await pool.run(
      request(`const all = []; for (let i = 0; i < 1000; i++) all.push(lookupRole('u' + i)); await Promise.all(all); return { deny: false };`, {
        toolbox: testToolbox(calls),
      }),
    );
    const error = errorOf(pending);
    expect(error.kind).toBe('thrown');
    expect(error.message).toContain('too many async toolbox calls pending (64)');
    expect(calls.length).toBe(64);

    const total = errorOf(await pool.run(request(`for (;;) add(1, 2);`, { toolbox: testToolbox() })));
    expect(total.kind).toBe('thrown');
    expect(total.message).toContain('toolbox call limit reached (10000 per run)');
  });
});
