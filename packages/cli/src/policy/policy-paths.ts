import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ValidationError } from '@guardagent/errors';
import { isTestsFile } from './policy-tests-file';

const POLICY_EXTENSIONS = ['.yaml', '.yml', '.json'];
const isPolicyName = (name: string) => POLICY_EXTENSIONS.some((ext) => name.endsWith(ext)) && !isTestsFile(name);

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (entry.isFile() && isPolicyName(entry.name)) out.push(path);
  }
}

/** The policy a tests file is for: `x.tests.yaml` → the first of `x.yaml`, `x.yml`, `x.json` that exists. */
function policyOfTestsFile(path: string): string {
  const base = path.slice(0, path.lastIndexOf('.tests.'));
  const found = POLICY_EXTENSIONS.map((ext) => `${base}${ext}`).find((candidate) => existsSync(candidate));
  if (!found) throw new ValidationError(path, [{ path: '', message: `no policy beside this tests file (looked for ${POLICY_EXTENSIONS.map((ext) => `${base}${ext}`).join(', ')})` }]);
  return found;
}

/**
 * The policy files the arguments name: files as given (a tests file stands for its policy), and
 * every policy file under a directory (YAML and JSON, not tests files, not hidden ones), sorted.
 */
export function policyPaths(args: readonly string[]): string[] {
  if (args.length === 0) throw new ValidationError('arguments', [{ path: 'FILE', message: 'name at least one policy file or directory' }]);
  const out: string[] = [];
  for (const arg of args) {
    if (!existsSync(arg)) throw new ValidationError(arg, [{ path: '', message: 'no such file or directory' }]);
    if (statSync(arg).isDirectory()) {
      const before = out.length;
      walk(arg, out);
      if (out.length === before) throw new ValidationError(arg, [{ path: '', message: 'no policy files (.yaml, .yml, .json) in this directory' }]);
    } else {
      out.push(isTestsFile(arg) ? policyOfTestsFile(arg) : arg);
    }
  }
  return [...new Set(out)];
}
