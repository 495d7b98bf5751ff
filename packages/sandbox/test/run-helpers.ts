import type { RunRequest, RunResult, SandboxToolboxFunction } from '../src/index';

export function request(code: string, extra: Partial<RunRequest> = {}): RunRequest {
  return { code, input: {}, output: {}, context: {}, toolbox: [], ...extra };
}

export function verdictOf(result: RunResult) {
  if (!result.ok) throw new Error(`expected a verdict, got ${result.error.kind}: ${result.error.message}`);
  return result.verdict;
}

export function errorOf(result: RunResult) {
  if (result.ok) throw new Error(`expected an error, got verdict ${JSON.stringify(result.verdict)}`);
  return result.error;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A small toolbox: sync arithmetic, an async lookup that answers after a timer, and failures. */
export function testToolbox(calls: string[] = []): SandboxToolboxFunction[] {
  return [
    {
      name: 'add',
      async: false,
      fn: (a: number, b: number) => {
        calls.push('add');
        return a + b;
      },
    },
    {
      name: 'lookupRole',
      async: true,
      fn: async (user: string) => {
        calls.push('lookupRole');
        await sleep(20);
        return { user, role: user === 'root' ? 'admin' : 'guest' };
      },
    },
    {
      name: 'failSync',
      async: false,
      fn: () => {
        throw new Error('database offline');
      },
    },
    {
      name: 'failAsync',
      async: true,
      fn: async () => {
        await sleep(5);
        throw new Error('remote said no');
      },
    },
    { name: 'never', async: true, fn: () => new Promise(() => {}) },
  ];
}
