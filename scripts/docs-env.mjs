#!/usr/bin/env node
// Writes the table of environment variables into docs/operations.md, between
// <!-- env-table:start --> and <!-- env-table:end -->, from the list in
// packages/config/src/env-variables.ts. Run through tsx: `npm run docs:env`.
// packages/config/test/env-variables.test.ts fails when the docs differ from what this writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withEnvTable } from '../packages/config/src/env-docs.ts';

const path = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'docs', 'operations.md');
const before = readFileSync(path, 'utf8');
const after = withEnvTable(before);
if (after === before) {
  process.stdout.write('docs/operations.md: the table of environment variables is up to date\n');
} else {
  writeFileSync(path, after);
  process.stdout.write('docs/operations.md: the table of environment variables was rewritten\n');
}
