import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources in tests (package.json `exports`:
  // "@guardagent/source"); processes the tests spawn run the built JavaScript, which
  // test/setup/build-global-setup.ts builds first.
  resolve: { conditions: ['@guardagent/source'] },
  ssr: { resolve: { conditions: ['@guardagent/source'] } },
  test: {
    // isolated-vm needs --no-node-snapshot, which only child processes (forks) accept.
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    include: ['packages/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    // The install test (npm run pack, then npm install of every tarball into an empty project: over
    // two minutes on Node 20, where the CLI's install compiles isolated-vm) runs where it is asked
    // for: `npm run test:install`, and CI's full run (GUARDAGENT_TEST_INSTALL=1).
    exclude: process.env.GUARDAGENT_TEST_INSTALL === '1' ? ['**/node_modules/**'] : ['**/node_modules/**', 'test/install/**'],
    globalSetup: ['test/setup/build-global-setup.ts', 'test/setup/redis-global-setup.ts'],
    // A timeout is there to catch a hang, not a slow machine: on 2 cores with two busy loops beside
    // the suite, a test that starts five CLI processes took over 60 s. Tests that wait on something
    // bound that wait themselves.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    maxWorkers: 2,
    // A terminal gets vitest's live view; a pipe or CI log also gets a running count (see the file).
    reporters: process.stdout.isTTY ? ['default'] : ['default', './test/setup/progress-reporter.ts'],
  },
});
