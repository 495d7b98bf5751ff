import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // isolated-vm needs --no-node-snapshot, which only child processes (forks) accept.
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    include: ['packages/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/setup/redis-global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    // A terminal gets vitest's live view; a pipe or CI log also gets a running count (see the file).
    reporters: process.stdout.isTTY ? ['default'] : ['default', './test/setup/progress-reporter.ts'],
  },
});
