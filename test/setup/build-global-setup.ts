import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Builds every workspace's JavaScript (scripts/build.mjs, about a second) before any test runs:
 * the processes tests spawn (services, the CLI, sandbox workers) run the built code, as
 * deployments do, and it must be the code under test. Imports nothing of the workspace, so it
 * runs before anything resolves a package to its dist/.
 */
export function setup(): void {
  const script = fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url));
  execFileSync(process.execPath, [script], { stdio: ['ignore', 'inherit', 'inherit'] });
  // Runtimes created inside test files run from source; their sandbox workers may fork the build
  // just made (see sandboxWorkerCommand). Test workers inherit this environment.
  process.env.GUARDAGENT_SANDBOX_WORKER = 'built';
}
