import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
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
    // Fake interval timers: the watcher's looks happen when the test advances them, so "not
    // before" is checked after a counted number of looks at the live process, not after a sleep.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const kill = vi.spyOn(process, 'kill');
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    const pid = child.pid!;
    const looks = () => kill.mock.calls.filter(([p, signal]) => p === pid && signal === 0).length;
    try {
      let gone = 0;
      const stop = watchLauncher(pid, () => (gone += 1), 20);
      vi.advanceTimersByTime(100);
      expect(looks()).toBe(5);
      expect(gone).toBe(0);
      expect(vi.getTimerCount()).toBe(1);

      child.kill('SIGKILL');
      await once(child, 'exit');
      vi.advanceTimersByTime(20);
      expect(gone).toBe(1);
      expect(isRunning(pid)).toBe(false);
      // It stopped watching: later intervals neither look nor call back again.
      expect(vi.getTimerCount()).toBe(0);
      vi.advanceTimersByTime(100);
      expect(gone).toBe(1);
      stop();
    } finally {
      child.kill('SIGKILL');
      kill.mockRestore();
      vi.useRealTimers();
    }
  });
});
