#!/usr/bin/env node
// Packs the packages a user's project installs into tarballs in dist/packages/ (git-ignored):
// the agent SDK (@guardagent/client), the two adapters, the MCP proxy and the CLI.
//
//   npm run pack          # or: node scripts/pack.mjs [client ai-sdk ...]
//   npm install /path/to/guardagent/dist/packages/guardagent-client-0.1.0.tgz
//
// Each tarball installs outside this repository: esbuild bundles the package's entry points with
// every workspace (`@guardagent/*`) import inlined and every third-party import left external; the
// third-party packages the bundle imports (or loads with createRequire) become the tarball's
// `dependencies`, at the versions the workspaces declare / package-lock.json holds. The adapters
// and the MCP proxy leave the agent SDK (`@guardagent/client`) external too, as a peer dependency
// on the packed SDK's exact version: the user's project holds one copy of the SDK, so an error an
// adapter throws is an `instanceof` of the class the user imports, and a transport the user builds
// is the one the adapter's code expects.
// Libraries ship type declarations: one `tsc --emitDeclarationOnly` over their entries, then the
// declarations each entry reaches are copied in with `@guardagent/*` specifiers made relative (but
// `@guardagent/client` in the packages that take the SDK as a peer).
// Files the code reads by path (`new URL('../x', import.meta.url)`: benchmark samples, example
// policies) are copied into assets/ and the URL rewritten; the entry files the code forks or runs in
// a worker thread (`new URL('./x.js', import.meta.url)`) are entry points of the bundle, next to
// the chunk that names them. test/install/tarballs.test.ts installs the tarballs in an empty project.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'packages');
const STAGE = join(OUT, '.stage');
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

/**
 * What is packed. `entries`: output name → source (relative to the package). `types`: the entries
 * that get declarations and an `exports` subpath. `peers`: third-party packages the user brings
 * (the framework an adapter plugs into), declared as peerDependencies. `sdkPeer`: the package
 * imports `@guardagent/client` (its main entry, not a subpath) from the user's project, a peer at
 * the packed SDK's version, instead of inlining it; its declarations name '@guardagent/client' too.
 */
const TARGETS = {
  client: {
    dir: 'packages/client',
    entries: { index: 'src/index.ts' },
    exports: { '.': 'index' },
    description: 'GuardAgent agent SDK: guard tool calls through the GuardAgent HTTP gateway',
  },
  'ai-sdk': {
    dir: 'packages/ai-sdk',
    entries: { index: 'src/index.ts' },
    exports: { '.': 'index' },
    peers: ['ai'],
    sdkPeer: true,
    description: 'GuardAgent for the Vercel AI SDK: guarded tools and the approvals loop',
  },
  'agents-openai': {
    dir: 'packages/agents-openai',
    entries: { index: 'src/index.ts' },
    exports: { '.': 'index' },
    peers: ['@openai/agents'],
    sdkPeer: true,
    description: 'GuardAgent for the OpenAI Agents SDK: a tool input guardrail and the approvals loop',
  },
  'mcp-proxy': {
    dir: 'packages/mcp-proxy',
    entries: { index: 'src/index.ts' },
    exports: { '.': 'index' },
    sdkPeer: true,
    description: 'GuardAgent MCP proxy: every tools/call becomes a guard job',
  },
  cli: {
    dir: 'packages/cli',
    entries: {
      main: 'src/main.ts',
      // Forked as a process / run in a worker thread by path (create-guard-runner.ts, rails-worker-pool.ts).
      'sandbox-child-main': '../pipeline/src/sandbox/sandbox-child-main.ts',
      'rails-worker-main': '../rails/src/offload/rails-worker-main.ts',
    },
    bin: { guardagent: 'bin/guardagent.mjs' },
    shrinkwrap: true,
    description: 'The guardagent command: a local GuardAgent stack, checks, policies, the MCP proxy',
  },
};

// ---------------------------------------------------------------------------------------------
// Versions of third-party packages: what a workspace declares (exact, or an npm: alias), else
// what package-lock.json installed.

const WORKSPACE_DIRS = ['packages', 'services'].flatMap((top) =>
  readdirSync(join(ROOT, top))
    .map((name) => join(ROOT, top, name))
    .filter((dir) => existsSync(join(dir, 'package.json'))),
);
const WORKSPACES = new Map(WORKSPACE_DIRS.map((dir) => [readJson(join(dir, 'package.json')).name, dir]));
const lock = readJson(join(ROOT, 'package-lock.json'));
const declared = new Map();
for (const pkg of [readJson(join(ROOT, 'package.json')), ...WORKSPACE_DIRS.map((dir) => readJson(join(dir, 'package.json')))]) {
  for (const field of ['devDependencies', 'peerDependencies', 'optionalDependencies', 'dependencies']) {
    for (const [name, spec] of Object.entries(pkg[field] ?? {})) if (!name.startsWith('@guardagent/')) declared.set(name, spec);
  }
}

function versionOf(name) {
  const spec = declared.get(name);
  if (spec && (/^\d+\.\d+\.\d+/.test(spec) || spec.startsWith('npm:'))) return spec;
  const locked = lock.packages[`node_modules/${name}`]?.version;
  if (locked) return locked;
  throw new Error(`pack: no version for ${name} (neither declared exactly by a workspace nor in package-lock.json)`);
}

const BUILTINS = new Set(builtinModules);
/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`; null for builtins and relative paths. */
function packageName(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return null;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return BUILTINS.has(name) ? null : name;
}

const toPosix = (path) => path.split(sep).join('/');

/** The agent SDK: what `sdkPeer` targets import from the user's project. */
const SDK = '@guardagent/client';

// ---------------------------------------------------------------------------------------------
// The bundle.

/**
 * Workspace imports resolve to their TypeScript sources and are inlined; every other bare import
 * stays external. In workspace sources, `new URL('<relative>', import.meta.url)` is rewritten:
 * a data file or folder is copied to assets/ (same path as in the repository) and the URL points
 * there from dist/; a `.js` file must be one of the bundle's entries (it is forked or run as a
 * worker), and stays `./<entry>.js`.
 */
function bundlePlugin(target, assets) {
  const entryNames = new Set(Object.keys(target.entries));
  return {
    name: 'guardagent-pack',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (target.sdkPeer && args.path === SDK) return { path: args.path, external: true };
        if (args.kind === 'entry-point' || args.path.startsWith('@guardagent/')) return undefined;
        return { path: args.path, external: true };
      });
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const errors = [];
        const contents = source.replace(/new URL\((['"`])(\.{1,2}\/[^'"`]+)\1, import\.meta\.url\)/g, (whole, quote, rel) => {
          const targetPath = resolve(dirname(args.path), rel);
          if (/\.ts$/.test(rel) || rel.includes('/dist/')) return whole; // source-mode branches (tsx), never taken in the bundle
          if (/\.js$/.test(rel)) {
            const name = posix.basename(rel, '.js');
            if (!rel.startsWith('./') || !entryNames.has(name)) errors.push({ text: `${relative(ROOT, args.path)} loads ${rel}: make it an entry of the bundle` });
            return whole;
          }
          const inRepo = relative(ROOT, targetPath);
          if (inRepo.startsWith('..')) return `new URL(${quote}../assets/outside-repository/${posix.basename(rel)}${quote}, import.meta.url)`;
          if (existsSync(targetPath)) assets.add(inRepo);
          return `new URL(${quote}../assets/${toPosix(inRepo)}${rel.endsWith('/') ? '/' : ''}${quote}, import.meta.url)`;
        });
        return { contents, loader: 'ts', errors };
      });
    },
  };
}

async function bundle(target, stageDir) {
  const assets = new Set();
  const packageDir = join(ROOT, target.dir);
  const result = await esbuild.build({
    entryPoints: Object.fromEntries(Object.entries(target.entries).map(([name, src]) => [name, join(packageDir, src)])),
    outdir: join(stageDir, 'dist'),
    bundle: true,
    splitting: Object.keys(target.entries).length > 1,
    chunkNames: 'chunk-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@guardagent/source'],
    sourcemap: false,
    metafile: true,
    logLevel: 'warning',
    plugins: [bundlePlugin(target, assets)],
  });
  const imported = new Set();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const entry of output.imports) if (entry.external) imported.add(entry.path);
  }
  if (target.sdkPeer) {
    // No second copy of the SDK: neither its code nor its errors (a subclass of an inlined
    // GuardAgentError would not be an instanceof the user's) reach the bundle another way.
    const sdkSources = [SDK, '@guardagent/errors'].map((name) => WORKSPACES.get(name) + sep);
    for (const output of Object.values(result.metafile.outputs)) {
      for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
        if (bytesInOutput === 0 || !sdkSources.some((dir) => resolve(ROOT, input).startsWith(dir))) continue;
        const importers = Object.entries(result.metafile.inputs).filter(([, meta]) => meta.imports.some((entry) => entry.path === input)).map(([path]) => path);
        throw new Error(`pack: ${target.dir} would inline ${input} (imported by ${importers.join(', ') || 'an entry'}); import it through ${SDK}, which the package takes from the user's project`);
      }
    }
  }
  // Packages loaded with createRequire (`require('x')`, `require.resolve('x/…')`) and the
  // optional dependencies (isolated-vm's aliases, chosen at run time) of every workspace inlined.
  const inlined = new Set();
  for (const input of Object.keys(result.metafile.inputs)) {
    const abs = resolve(ROOT, input);
    if (abs.includes(`${sep}node_modules${sep}`)) continue;
    const source = readFileSync(abs, 'utf8');
    for (const match of source.matchAll(/(?:\brequire|\brequire\.resolve|createRequire\([^)]*\))\(\s*['"]([^'"\s]+)['"]\s*\)/g)) imported.add(match[1]);
    for (const [name, dir] of WORKSPACES) if (abs.startsWith(dir + sep)) inlined.add(name);
  }
  const optional = {};
  for (const name of inlined) {
    for (const [dep, spec] of Object.entries(readJson(join(WORKSPACES.get(name), 'package.json')).optionalDependencies ?? {})) optional[dep] = spec;
  }
  const packages = new Set([...imported].map(packageName).filter((name) => name && !name.startsWith('@guardagent/')));
  for (const name of Object.keys(optional)) packages.delete(name);
  for (const asset of assets) cpSync(join(ROOT, asset), join(stageDir, 'assets', asset), { recursive: true });
  return { packages, optional, inlined };
}

// ---------------------------------------------------------------------------------------------
// Type declarations: one tsc run over every entry with declarations, into STAGE/types (the
// repository's layout); each tarball then takes the declarations its entries reach.

function emitDeclarations(targets) {
  const files = targets.flatMap((target) => Object.values(target.exports ?? {}).map((name) => join(ROOT, target.dir, target.entries[name])));
  if (files.length === 0) return null;
  // Workspace sources reached through node_modules count as a library's to tsc, which emits no
  // declarations for them: every workspace the targets depend on is a root of the program.
  const workspaces = new Set();
  const visit = (name) => {
    if (workspaces.has(name) || !WORKSPACES.has(name)) return;
    workspaces.add(name);
    for (const dep of Object.keys(readJson(join(WORKSPACES.get(name), 'package.json')).dependencies ?? {})) visit(dep);
  };
  for (const target of targets) if (target.exports) visit(readJson(join(ROOT, target.dir, 'package.json')).name);
  const include = [...workspaces].map((name) => join(WORKSPACES.get(name), 'src'));
  const out = join(STAGE, 'types');
  const tsconfig = join(STAGE, 'tsconfig.types.json');
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.json'),
      files,
      include,
      compilerOptions: { noEmit: false, declaration: true, emitDeclarationOnly: true, outDir: out, rootDir: ROOT, types: ['node'], typeRoots: [join(ROOT, 'node_modules/@types')] },
    }),
  );
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/lib/tsc.js'), '-p', tsconfig], { cwd: ROOT, stdio: 'inherit' });
  return out;
}

/** The declaration file a workspace specifier (`@guardagent/x` or `@guardagent/x/sub`) names, repository-relative. */
function workspaceDeclaration(specifier) {
  const parts = specifier.split('/');
  const name = parts.slice(0, 2).join('/');
  const sub = parts.length > 2 ? `./${parts.slice(2).join('/')}` : '.';
  const dir = WORKSPACES.get(name);
  const exported = dir && readJson(join(dir, 'package.json')).exports?.[sub];
  const types = typeof exported === 'object' ? exported.types : undefined;
  if (!types) throw new Error(`pack: ${specifier} has no types export`);
  return relative(ROOT, join(dir, types)).replace(/\.ts$/, '.d.ts');
}

function copyDeclarations(typesDir, target, stageDir, packages) {
  // A `sdkPeer` target's declarations name the SDK the user installed ('@guardagent/client'), never
  // a copy of its or its errors' declarations: a type they need comes through the SDK's entry.
  const sdkFiles = [SDK, '@guardagent/errors'].map((name) => `${relative(ROOT, WORKSPACES.get(name))}${sep}`);
  const queue = Object.values(target.exports).map((name) => relative(ROOT, join(ROOT, target.dir, target.entries[name])).replace(/\.ts$/, '.d.ts'));
  const seen = new Set(queue);
  while (queue.length > 0) {
    const file = queue.shift();
    const text = readFileSync(join(typesDir, file), 'utf8');
    const rewritten = text.replace(/(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"]+)\2/g, (whole, lead, quote, specifier) => {
      let declaration;
      if (target.sdkPeer && specifier === SDK) return whole;
      if (specifier.startsWith('@guardagent/')) declaration = workspaceDeclaration(specifier);
      else if (specifier.startsWith('.')) {
        const base = join(dirname(file), specifier.replace(/\.js$/, ''));
        declaration = existsSync(join(typesDir, `${base}.d.ts`)) ? `${base}.d.ts` : join(base, 'index.d.ts');
        if (!existsSync(join(typesDir, declaration))) throw new Error(`pack: ${file} imports ${specifier}, which has no declaration`);
      } else {
        const name = packageName(specifier);
        if (name) packages.add(name);
        return whole;
      }
      if (target.sdkPeer && sdkFiles.some((dir) => declaration.startsWith(dir))) {
        throw new Error(`pack: ${target.dir}'s declarations reach ${declaration} (${file} imports ${specifier}): import the type through '${SDK}' (exporting it there if it is missing)`);
      }
      if (!seen.has(declaration)) {
        seen.add(declaration);
        queue.push(declaration);
      }
      let path = toPosix(relative(dirname(file), declaration)).replace(/\.d\.ts$/, '.js');
      if (!path.startsWith('.')) path = `./${path}`;
      return `${lead}${quote}${path}${quote}`;
    });
    mkdirSync(dirname(join(stageDir, 'types', file)), { recursive: true });
    writeFileSync(join(stageDir, 'types', file), rewritten);
  }
}

// ---------------------------------------------------------------------------------------------
// The CLI is an application: its tarball carries an npm-shrinkwrap.json, the part of the root
// package-lock.json its dependencies reach, so a user's install gets the tree this repository
// tested (and, here, finds every package in the npm cache). Libraries carry none (npm's advice:
// a shrinkwrap in a library stops the user's project deduplicating).

/** The lock path `name` resolves to from lock path `from`, as Node looks it up (nearest node_modules first). */
function resolveInLock(from, name) {
  let dir = from;
  for (;;) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!dir) return null;
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut >= 0 ? dir.slice(0, cut) : '';
  }
}

function shrinkwrap(manifest, inlined) {
  const direct = { ...manifest.dependencies, ...manifest.optionalDependencies };
  const placed = new Map(); // shrinkwrap path → lock path
  const queue = [];
  const place = (parent, name, lockPath) => {
    // Hoist to the top when free (or already the same package there), else nest under the parent.
    const top = `node_modules/${name}`;
    const path = !placed.has(top) || placed.get(top) === lockPath ? top : `${parent}/node_modules/${name}`;
    if (placed.has(path)) return;
    placed.set(path, lockPath);
    queue.push(path);
  };
  for (const name of Object.keys(direct)) {
    // From the workspace that declares it (a workspace may hold its own version), else the root.
    const owner = [...inlined].map((ws) => relative(ROOT, WORKSPACES.get(ws))).find((dir) => lock.packages[`${dir}/node_modules/${name}`]);
    const lockPath = (owner && `${owner}/node_modules/${name}`) || resolveInLock('', name);
    if (!lockPath) throw new Error(`pack: ${name} is not in package-lock.json`);
    place('', name, lockPath);
  }
  while (queue.length > 0) {
    const path = queue.shift();
    const lockPath = placed.get(path);
    const entry = lock.packages[lockPath];
    const wanted = { ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies };
    for (const name of Object.keys(wanted)) {
      const target = resolveInLock(lockPath, name);
      if (!target) continue; // an optional or peer dependency the repository does not install
      // Already visible from here (at the top or on the way up) as the same package: nothing to add.
      let dir = path;
      let seen = null;
      for (;;) {
        const candidate = `${dir}/node_modules/${name}`;
        if (placed.has(candidate)) {
          seen = placed.get(candidate);
          break;
        }
        const cut = dir.lastIndexOf('/node_modules/');
        if (cut < 0) break;
        dir = dir.slice(0, cut);
      }
      if (seen === null && placed.has(`node_modules/${name}`)) seen = placed.get(`node_modules/${name}`);
      if (seen === target) continue;
      if (seen !== null && lock.packages[seen].version === lock.packages[target].version) continue;
      if (seen !== null) {
        placed.set(`${path}/node_modules/${name}`, target);
        queue.push(`${path}/node_modules/${name}`);
      } else place(path, name, target);
    }
  }
  const packages = { '': { name: manifest.name, version: manifest.version, dependencies: manifest.dependencies, optionalDependencies: manifest.optionalDependencies, engines: manifest.engines, bin: manifest.bin } };
  for (const path of [...placed.keys()].sort()) {
    const { dev, devOptional, peer, ...entry } = lock.packages[placed.get(path)];
    packages[path] = entry;
  }
  return { name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages };
}

// ---------------------------------------------------------------------------------------------

function sorted(names, spec) {
  return Object.fromEntries([...names].sort().map((name) => [name, spec(name)]));
}

async function packOne(key, target, typesDir) {
  const source = readJson(join(ROOT, target.dir, 'package.json'));
  const stageDir = join(STAGE, key);
  rmSync(stageDir, { recursive: true, force: true });
  mkdirSync(stageDir, { recursive: true });
  const { packages, optional, inlined } = await bundle(target, stageDir);
  const manifest = {
    name: source.name,
    version: source.version,
    description: target.description,
    type: 'module',
    engines: readJson(join(ROOT, 'package.json')).engines,
  };
  if (target.exports) {
    manifest.exports = {};
    for (const [subpath, name] of Object.entries(target.exports)) {
      const declaration = `./types/${toPosix(relative(ROOT, join(ROOT, target.dir, target.entries[name]))).replace(/\.ts$/, '.d.ts')}`;
      manifest.exports[subpath] = { types: declaration, default: `./dist/${name}.js` };
    }
    manifest.exports['./package.json'] = './package.json';
    copyDeclarations(typesDir, target, stageDir, packages);
  } else {
    manifest.exports = { './package.json': './package.json' };
  }
  if (target.bin) {
    manifest.bin = {};
    for (const [command, file] of Object.entries(target.bin)) {
      cpSync(join(ROOT, target.dir, file), join(stageDir, file));
      manifest.bin[command] = `./${file}`;
    }
  }
  const peers = new Set(target.peers ?? []);
  for (const peer of peers) packages.delete(peer);
  // The version the inlined workspace that imports it declares (workspaces may differ), else the repository's.
  const inlinedSpec = (name) => {
    for (const ws of inlined) {
      const spec = readJson(join(WORKSPACES.get(ws), 'package.json')).dependencies?.[name];
      if (spec && /^\d+\.\d+\.\d+/.test(spec)) return spec;
    }
    return versionOf(name);
  };
  if (packages.size > 0) manifest.dependencies = sorted(packages, inlinedSpec);
  if (Object.keys(optional).length > 0) manifest.optionalDependencies = sorted(Object.keys(optional), (name) => optional[name]);
  if (target.sdkPeer) peers.add(SDK);
  const peerSpec = (name) => (name === SDK ? readJson(join(WORKSPACES.get(SDK), 'package.json')).version : `^${versionOf(name)}`);
  if (peers.size > 0) manifest.peerDependencies = sorted(peers, peerSpec);
  writeFileSync(join(stageDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  if (target.shrinkwrap) writeFileSync(join(stageDir, 'npm-shrinkwrap.json'), `${JSON.stringify(shrinkwrap(manifest, inlined), null, 2)}\n`);
  writeFileSync(
    join(stageDir, 'README.md'),
    `# ${source.name}\n\n${target.description}.\n\nPacked from the GuardAgent repository by \`npm run pack\`; see its README.\n`,
  );
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', OUT], { cwd: stageDir, encoding: 'utf8' }));
  return { name: source.name, file: join(OUT, packed.filename), dependencies: Object.keys(manifest.dependencies ?? {}) };
}

const started = performance.now();
const wanted = process.argv.slice(2);
const keys = wanted.length > 0 ? wanted : Object.keys(TARGETS);
for (const key of keys) if (!TARGETS[key]) throw new Error(`pack: no package ${key} (one of ${Object.keys(TARGETS).join(', ')})`);
rmSync(STAGE, { recursive: true, force: true });
mkdirSync(STAGE, { recursive: true });
for (const key of keys) rmSync(join(OUT, `guardagent-${key}-${readJson(join(ROOT, TARGETS[key].dir, 'package.json')).version}.tgz`), { force: true });
const typesDir = emitDeclarations(keys.map((key) => TARGETS[key]));
const packed = [];
for (const key of keys) packed.push(await packOne(key, TARGETS[key], typesDir));
rmSync(STAGE, { recursive: true, force: true });
for (const { file, dependencies } of packed) console.log(`${relative(ROOT, file)}  (${dependencies.length} dependencies: ${dependencies.join(', ') || 'none'})`);
console.error(`pack: ${packed.length} tarballs in ${Math.round(performance.now() - started)} ms`);
