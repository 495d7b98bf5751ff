import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { findNpmLauncher, type ProcessTable } from '../src/process/npm-launcher';
import { isRunning, watchLauncher } from '../src/process/watch-launcher';

function table(processes: Record<number, [parent: number, command: string]>): ProcessTable {
  return {
    parentOf: (pid) => processes[pid]?.[0] ?? null,
    commandOf: (pid) => processes[pid]?.[1] ?? '',
  };
}

describe('findNpmLauncher', () => {
  const npx = table({
    300: [200, 'node /repo/node_modules/.bin/guardagent batch'],
    200: [100, "sh -c 'guardagent' batch"],
    100: [50, 'npm exec guardagent batch'],
    50: [1, '-bash'],
  });

  it('finds npm exec two levels up (npm → sh -c → the bin)', () => {
    expect(findNpmLauncher({ npm_command: 'exec' }, 300, npx)).toBe(100);
  });

  it('finds npm run as node …/npm-cli.js', () => {
    const run = table({ 30: [20, 'node x'], 20: [10, 'sh -c guardagent demo'], 10: [1, '/usr/bin/node /usr/lib/node_modules/npm/bin/npm-cli.js run demo'] });
    expect(findNpmLauncher({ npm_command: 'run-script' }, 30, run)).toBe(10);
  });

  it('follows nothing when npm did not start us, or when npm is further up than its own launch', () => {
    expect(findNpmLauncher({}, 300, npx)).toBeNull();
    const deep = table({ 40: [30, 'node bin'], 30: [20, 'node vitest'], 20: [10, 'sh -c vitest'], 10: [1, 'npm test'] });
    expect(findNpmLauncher({ npm_command: 'run-script' }, 40, deep)).toBeNull();
  });
});

describe('watchLauncher', () => {
  it('calls back once the watched process is gone, and not before', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    let gone = 0;
    const stop = watchLauncher(child.pid!, () => (gone += 1), 20);
    expect(isRunning(child.pid!)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(gone).toBe(0);
    const noticed = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (gone > 0) {
          clearInterval(poll);
          resolve();
        }
      }, 10);
    });
    child.kill('SIGKILL');
    await once(child, 'exit');
    await noticed;
    expect(gone).toBe(1);
    expect(isRunning(child.pid!)).toBe(false);
    stop();
  });
});
