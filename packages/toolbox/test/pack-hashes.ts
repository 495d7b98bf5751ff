/**
 * The source of each toolbox pack, hashed, so that a pack whose behaviour changes without a bump of
 * its version in packages/schemas/src/toolbox-pack-versions.ts is caught (a guard program verified against the old
 * behaviour would otherwise be reused with the new). Used by pack-versions-recorded.test.ts and by
 * record-pack-hashes.ts (`npm run record-pack-hashes`), which rewrites pack-hashes.json.
 *
 * Which files belong to a pack: everything its functions can run.
 * - The pack's module, src/packs/<pack>.ts, and every file it imports at run time, followed
 *   transitively: relative imports are taken whole (so the pack's own directory and any shared
 *   helper it imports count, and a helper shared by two packs counts for both).
 * - Imports of other workspace packages (`@guardagent/rails`, `@guardagent/schemas`, ...) are
 *   followed by name: for each imported value the file of that package that defines it (through
 *   its `export ... from` re-exports) is taken whole, with its own imports. So detectInjection's
 *   files count for the rails and seeact packs, but the rails package's Redis stores do not.
 * - Type-only imports (`import type`, `{ type X }`) are not followed: they do not run.
 * - Third-party packages (static imports, and `require`/`require.resolve` of a package name, as the
 *   word lists are loaded) count by name and installed version: an upgrade of the SQL parser or of
 *   the WordNet data changes the hash. Node's built-in modules do not count.
 * - Not counted: src/registry.ts, src/warm-up.ts and src/index.ts (they list, instantiate and
 *   pre-load the packs; they run none of a pack's decisions).
 * The hash is taken over the files' contents and the packages' versions, not the files' paths, so
 * moving a file unchanged does not change it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..');
const TOOLBOX_SRC = resolve(import.meta.dirname, '..', 'src');
export const RECORD_PATH = join(import.meta.dirname, 'pack-hashes.json');

export interface PackState {
  version: string;
  sha256: string;
}
export type PackRecord = Record<string, PackState>;

export interface PackSource {
  /** Files, relative to the repository root, sorted. */
  files: string[];
  /** Third-party packages as `name@version`, sorted. */
  packages: string[];
  sha256: string;
}

interface Parsed {
  /** Run-time imports and re-exports: the specifier and the names taken ('*' for all of it). */
  imports: { specifier: string; names: string[] | '*' }[];
  /** Package names passed to require() or require.resolve(). */
  required: string[];
  /** Names this file declares and exports itself. */
  localExports: Set<string>;
  /** `export { a as b } from './x'`: b → (x, a); `export * from './x'`: under '*'. */
  reExports: { specifier: string; from: string; as: string }[];
  starExports: string[];
}

const parsedCache = new Map<string, Parsed>();

function parse(file: string): Parsed {
  const text = readFileSync(file, 'utf8');
  const key = `${file}\0${text}`; // by content too: a test edits its fixture between runs
  const cached = parsedCache.get(key);
  if (cached) return cached;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const parsed: Parsed = { imports: [], required: [], localExports: new Set(), reExports: [], starExports: [] };
  const exported = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const stmt of sf.statements) {
    if (ts.isImportDeclaration(stmt) && ts.isStringLiteral(stmt.moduleSpecifier)) {
      const clause = stmt.importClause;
      if (!clause) {
        parsed.imports.push({ specifier: stmt.moduleSpecifier.text, names: '*' }); // side-effect import
        continue;
      }
      if (clause.isTypeOnly) continue;
      const names: string[] = [];
      let all = false;
      if (clause.name) names.push('default');
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) all = true;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const el of bindings.elements) if (!el.isTypeOnly) names.push((el.propertyName ?? el.name).text);
      }
      if (all) parsed.imports.push({ specifier: stmt.moduleSpecifier.text, names: '*' });
      else if (names.length > 0) parsed.imports.push({ specifier: stmt.moduleSpecifier.text, names });
    } else if (ts.isExportDeclaration(stmt)) {
      if (stmt.isTypeOnly) continue;
      const specifier = stmt.moduleSpecifier && ts.isStringLiteral(stmt.moduleSpecifier) ? stmt.moduleSpecifier.text : undefined;
      const clause = stmt.exportClause;
      if (!clause) {
        if (specifier) parsed.starExports.push(specifier);
      } else if (ts.isNamedExports(clause)) {
        for (const el of clause.elements) {
          if (el.isTypeOnly) continue;
          const from = (el.propertyName ?? el.name).text;
          if (specifier) parsed.reExports.push({ specifier, from, as: el.name.text });
          else parsed.localExports.add(el.name.text);
        }
      } else if (specifier) {
        parsed.reExports.push({ specifier, from: '*', as: clause.name.text }); // export * as ns from
      }
    } else if (exported(stmt)) {
      if (ts.isVariableStatement(stmt)) {
        for (const d of stmt.declarationList.declarations) if (ts.isIdentifier(d.name)) parsed.localExports.add(d.name.text);
      } else if ((ts.isFunctionDeclaration(stmt) || ts.isClassDeclaration(stmt) || ts.isEnumDeclaration(stmt)) && stmt.name) {
        parsed.localExports.add(stmt.name.text);
      }
    } else if (ts.isExportAssignment(stmt)) {
      parsed.localExports.add('default');
    }
  }
  // A file taken whole runs its re-exports too, when it is imported.
  for (const r of parsed.reExports) parsed.imports.push({ specifier: r.specifier, names: r.from === '*' ? '*' : [r.from] });
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteral(node.arguments[0])) {
      const callee = node.expression.getText(sf);
      if (/(^|\.)require(\.resolve)?$/.test(callee) || /^createRequire\(.*\)$/s.test(callee)) parsed.required.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  parsedCache.set(key, parsed);
  return parsed;
}

function resolveRelative(from: string, specifier: string): string {
  const path = resolve(dirname(from), specifier);
  const base = path.replace(/\.js$/, '');
  const candidates = /\.(json|[cm]?ts|tsx)$/.test(path) ? [path] : [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')];
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error(`pack-hashes: cannot resolve ${specifier} from ${relative(REPO_ROOT, from)}`);
  return found;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The directory of an installed package, looked up as Node does from `from`. */
function installedDir(from: string, name: string): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`pack-hashes: ${name} (imported by ${relative(REPO_ROOT, from)}) is not installed`);
  }
}

/** The TypeScript source entry of a workspace package (its `@guardagent/source` export). */
function workspaceEntry(from: string, specifier: string): string {
  const name = packageName(specifier);
  const dir = realpathSync(installedDir(from, name)); // node_modules/@guardagent/x links to the package
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { exports?: Record<string, unknown> };
  const subpath = specifier === name ? '.' : `.${specifier.slice(name.length)}`;
  const target = pkg.exports?.[subpath] as Record<string, string> | string | undefined;
  const source = typeof target === 'object' ? target['@guardagent/source'] : undefined;
  if (!source) throw new Error(`pack-hashes: ${specifier} has no "@guardagent/source" export`);
  return resolve(dir, source);
}

const isWorkspace = (specifier: string) => specifier.startsWith('@guardagent/');
const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(packageName(specifier));

/** The file that defines `name` as exported from `file` (following its re-exports). */
function definingFile(file: string, name: string, seen = new Set<string>()): string | undefined {
  if (seen.has(file)) return undefined;
  seen.add(file);
  const parsed = parse(file);
  if (parsed.localExports.has(name)) return file;
  for (const r of parsed.reExports) {
    if (r.as !== name) continue;
    if (r.from === '*') return resolveRelative(file, r.specifier);
    return definingFile(resolveRelative(file, r.specifier), r.from, seen);
  }
  for (const s of parsed.starExports) {
    const found = definingFile(resolveRelative(file, s), name, seen);
    if (found) return found;
  }
  return undefined;
}

/**
 * The files and third-party packages a pack's functions run, and their hash. `srcDir` is the
 * toolbox's src directory (another for a test's fixture); files are listed relative to the
 * repository root (to `srcDir` for a fixture).
 */
export function packSource(pack: string, srcDir = TOOLBOX_SRC): PackSource {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [join(srcDir, 'packs', `${pack}.ts`)];
  const take = (file: string) => {
    if (!files.has(file)) queue.push(file);
  };
  const external = (from: string, specifier: string) => {
    if (isBuiltin(specifier)) return;
    const name = packageName(specifier);
    const dir = installedDir(from, name);
    const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
    packages.add(`${name}@${version}`);
  };
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    const parsed = parse(file);
    for (const { specifier, names } of parsed.imports) {
      if (specifier.startsWith('.')) {
        take(resolveRelative(file, specifier));
      } else if (isWorkspace(specifier)) {
        const entry = workspaceEntry(file, specifier);
        if (names === '*') {
          take(entry);
          continue;
        }
        for (const name of names) {
          const found = definingFile(entry, name);
          if (!found) throw new Error(`pack-hashes: ${specifier} does not export ${name} (imported by ${relative(REPO_ROOT, file)})`);
          take(found);
        }
      } else {
        external(file, specifier);
      }
    }
    for (const specifier of parsed.required) if (!specifier.startsWith('.')) external(file, specifier);
  }
  const sortedFiles = [...files].map((f) => relative(srcDir === TOOLBOX_SRC ? REPO_ROOT : srcDir, f)).sort();
  const sortedPackages = [...packages].sort();
  const contentHashes = [...files].map((f) => createHash('sha256').update(readFileSync(f)).digest('hex')).sort();
  const sha256 = createHash('sha256')
    .update(JSON.stringify({ files: contentHashes, packages: sortedPackages }))
    .digest('hex');
  return { files: sortedFiles, packages: sortedPackages, sha256 };
}

/** What each pack is now: its version (TOOLBOX_PACK_VERSIONS in @guardagent/schemas) and the hash of its source. */
export function currentPacks(versions: Record<string, string>): PackRecord {
  return Object.fromEntries(Object.entries(versions).map(([pack, version]) => [pack, { version, sha256: packSource(pack).sha256 }]));
}

/**
 * The packs whose record does not match: a changed hash under an unchanged version (the version
 * must be bumped), a changed version not recorded (run the recorder), a pack not recorded, a
 * recorded pack that is gone. Empty when the record holds.
 */
export function recordProblems(current: PackRecord, recorded: PackRecord): string[] {
  const problems: string[] = [];
  for (const [pack, now] of Object.entries(current)) {
    const was = recorded[pack];
    if (!was) {
      problems.push(`pack ${pack}: not in pack-hashes.json; run \`npm run record-pack-hashes\``);
    } else if (was.version === now.version && was.sha256 !== now.sha256) {
      problems.push(
        `pack ${pack}: its source changed (sha256 ${was.sha256.slice(0, 12)} → ${now.sha256.slice(0, 12)}) but its version is still ${now.version}: ` +
          `bump TOOLBOX_PACK_VERSIONS.${pack} in packages/schemas/src/toolbox-pack-versions.ts (and say what changed there), then run \`npm run record-pack-hashes\``,
      );
    } else if (was.version !== now.version) {
      problems.push(`pack ${pack}: its version is ${now.version} but pack-hashes.json records ${was.version}; run \`npm run record-pack-hashes\``);
    }
  }
  for (const pack of Object.keys(recorded)) {
    if (!(pack in current)) problems.push(`pack ${pack}: recorded in pack-hashes.json but no longer a pack; run \`npm run record-pack-hashes\``);
  }
  return problems;
}

/**
 * The record to write: the current state of every pack. Throws, naming the packs, when a pack's
 * hash changed under its recorded version (bump the version first).
 */
export function nextRecord(current: PackRecord, recorded: PackRecord): PackRecord {
  const refused = Object.entries(current)
    .filter(([pack, now]) => recorded[pack] && recorded[pack].version === now.version && recorded[pack].sha256 !== now.sha256)
    .map(([pack, now]) => `${pack} (version ${now.version})`);
  if (refused.length > 0) {
    throw new Error(
      `record-pack-hashes: the source of ${refused.join(', ')} changed but the version did not; ` +
        'bump it in packages/schemas/src/toolbox-pack-versions.ts first. Nothing was written.',
    );
  }
  return Object.fromEntries(Object.keys(current).sort().map((pack) => [pack, current[pack]]));
}

export function readRecord(path = RECORD_PATH): PackRecord {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as PackRecord) : {};
}
