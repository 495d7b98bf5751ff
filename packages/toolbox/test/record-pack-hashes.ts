/**
 * Rewrites pack-hashes.json with each toolbox pack's version and source hash (see pack-hashes.ts
 * for which files belong to a pack). Run after bumping a version in packages/schemas/src/toolbox-pack-versions.ts:
 *
 *   npm run record-pack-hashes
 *
 * Refuses, writing nothing and exiting 1, when a pack's source changed but its version did not:
 * a guard program verified against the old behaviour would be reused with the new.
 */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { TOOLBOX_PACK_VERSIONS } from '@guardagent/schemas';
import { currentPacks, nextRecord, readRecord, RECORD_PATH, REPO_ROOT } from './pack-hashes';

const recorded = readRecord();
const current = currentPacks(TOOLBOX_PACK_VERSIONS);
try {
  const next = nextRecord(current, recorded);
  writeFileSync(RECORD_PATH, `${JSON.stringify(next, null, 2)}\n`);
  for (const [pack, { version, sha256 }] of Object.entries(next)) {
    const was = recorded[pack];
    const note = !was ? 'new' : was.version === version ? 'unchanged' : `was ${was.version}`;
    process.stdout.write(`${pack} ${version} ${sha256.slice(0, 12)} (${note})\n`);
  }
  process.stdout.write(`wrote ${relative(REPO_ROOT, RECORD_PATH)}\n`);
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
}
