import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 33: only the forked sandbox workers run guard code, so only they load isolated-vm's
// native addon (and only they need --no-node-snapshot). The services, the gateway and the CLI's
// commands import the pipeline, which imports `@guardagent/sandbox/host`: no addon. Checked on the
// built JavaScript (test/setup/build-global-setup.ts builds it), in a fresh `node` without
// --no-node-snapshot, as those processes run.
const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const CLI_COMMANDS = join(ROOT, 'packages', 'cli', 'dist', 'commands');

/** What loading `modules` in a fresh process loaded of isolated-vm: shared objects and CommonJS modules. */
function isolatedVmLoadedBy(modules: string[]): { sharedObjects: string[]; required: string[] } {
  const script = `
    import { createRequire } from 'node:module';
    for (const module of ${JSON.stringify(modules.map((m) => pathToFileURL(m).href))}) await import(module);
    const sharedObjects = process.report.getReport().sharedObjects.filter((path) => /isolated[-_]vm/i.test(path));
    const required = Object.keys(createRequire(import.meta.url).cache).filter((path) => path.includes('isolated-vm'));
    process.stdout.write(JSON.stringify({ sharedObjects, required }));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '--eval', script], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout) as { sharedObjects: string[]; required: string[] };
}

describe('isolated-vm in host processes (issue 33)', () => {
  it('a sandbox worker loads the addon (the check sees it)', () => {
    const loaded = isolatedVmLoadedBy([join(ROOT, 'packages', 'sandbox', 'dist', 'index.js')]);
    expect(loaded.sharedObjects.some((path) => path.endsWith('.node'))).toBe(true);
  });

  it('the pipeline, the gateway and every CLI command do not', () => {
    const modules = [
      join(ROOT, 'packages', 'pipeline', 'dist', 'index.js'),
      join(ROOT, 'packages', 'sandbox', 'dist', 'host.js'),
      join(ROOT, 'services', 'gateway', 'dist', 'index.js'),
      join(ROOT, 'packages', 'cli', 'dist', 'local-stack.js'),
      ...readdirSync(CLI_COMMANDS)
        .filter((name) => name.endsWith('.js'))
        .map((name) => join(CLI_COMMANDS, name)),
    ];
    expect(isolatedVmLoadedBy(modules)).toEqual({ sharedObjects: [], required: [] });
  });
});
