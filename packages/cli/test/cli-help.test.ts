import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '@guardagent/client';
import { loadConfig } from '@guardagent/config';
import { DEFAULT_BATCH_CONCURRENCY, DEFAULT_IDLE_TIMEOUT_MS } from '../src/commands/batch';
import { OUTPUT_LOCK_STALE_MS } from '../src/batch/lock-output';

const BIN = join(import.meta.dirname, '..', 'bin', 'guardagent.mjs');

function help(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, ...args, '--help'], { timeout: 60_000 }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
  });
}

/** The default commander shows for an option: `--concurrency <n>  … (default: "2000")`, however the help wraps it. */
function optionDefault(text: string, flag: string): string | undefined {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.trimStart().startsWith(`${flag} `));
  if (at < 0) return undefined;
  // The option's entry: its line and the continuation lines indented under it.
  const end = lines.findIndex((l, i) => i > at && /^ {2}-/.test(l));
  const entry = lines.slice(at, end < 0 ? undefined : end).join(' ').replace(/\s+/g, ' ');
  return entry.match(/\(default: "([^"]*)"\)/)?.[1];
}

// The help is what users read: each default it states is compared with the one the code runs with.
describe('help states the defaults the code uses', () => {
  it('batch: the lock and stalled-check defaults, the option defaults, the output lock, the exit codes', async () => {
    const raw = await help(['batch']);
    const text = raw.replace(/\s+/g, ' ');
    const config = loadConfig({});
    const lock = text.match(/GUARDAGENT_LOCK_DURATION_MS, default ([\d.]+) s/);
    expect(lock?.[1] && Number(lock[1]) * 1000).toBe(config.lockDurationMs);
    const stalled = text.match(/GUARDAGENT_STALLED_INTERVAL_MS, default ([\d.]+) s/);
    expect(stalled?.[1] && Number(stalled[1]) * 1000).toBe(config.stalledIntervalMs);
    const within = text.match(/taken over by other workers within ([\d.]+) s/);
    expect(within?.[1] && Number(within[1]) * 1000).toBe(config.lockDurationMs + config.stalledIntervalMs);
    const stale = text.match(/taken over after ([\d.]+) s/);
    expect(stale?.[1] && Number(stale[1]) * 1000).toBe(OUTPUT_LOCK_STALE_MS);
    // Every exit code the help lists is one of the table's, with the table's meaning for it.
    const listed = [...raw.slice(raw.indexOf('Exit codes')).matchAll(/^ {2}(\d+) {2,}/gm)].map((m) => Number(m[1]));
    expect(listed).toEqual([EXIT_CODES.OK, EXIT_CODES.GUARD_ERROR, EXIT_CODES.INVALID, EXIT_CODES.UNAVAILABLE, EXIT_CODES.INTERRUPTED]);
    expect(text).toMatch(new RegExp(`give up \\(exit ${EXIT_CODES.UNAVAILABLE}\\)`));
  });

  it('batch and replay option defaults are the constants the commands run with', async () => {
    for (const command of ['batch', 'replay']) {
      const text = await help([command]);
      expect(optionDefault(text, '--concurrency <n>'), command).toBe(String(DEFAULT_BATCH_CONCURRENCY));
      expect(optionDefault(text, '--idle-timeout <ms>'), command).toBe(String(DEFAULT_IDLE_TIMEOUT_MS));
    }
    const replay = (await help(['replay'])).replace(/\s+/g, ' ');
    expect(replay).toContain(`exit ${EXIT_CODES.FLIPPED} when any decision flips`);
  });
});
