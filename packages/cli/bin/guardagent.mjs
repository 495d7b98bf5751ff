#!/usr/bin/env node
// The command runs the built JavaScript (`npm run build`, which `npm install` runs too) in this
// one process: a wrapper process in between did not pass on a SIGKILL, and the command it had
// started kept running (and writing --out) after the operator killed `guardagent`.
// Sandbox worker processes get --no-node-snapshot themselves (packages/pipeline/src/sandbox/create-guard-runner.ts).
try {
  await import(new URL('../dist/main.js', import.meta.url).href);
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('/cli/dist/main.js')) {
    process.stderr.write('guardagent: the CLI is not built; run `npm run build` in the repository (npm install runs it too)\n');
    process.exit(1);
  }
  throw error;
}
