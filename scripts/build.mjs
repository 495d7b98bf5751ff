#!/usr/bin/env node
// Compiles every workspace's TypeScript sources (packages/*/src, services/*/src) to JavaScript in
// its dist/ folder, file for file, so the tree and every `new URL('../x', import.meta.url)` keep
// their meaning. Relative imports get their `.js` (or `/index.js`) extension, as Node's ESM
// loader needs; every other import stays as written (workspace packages resolve to their own
// dist through package.json `exports`). Type-checking is `npm run typecheck`'s job, not this one.
// A workspace whose package.json says `"guardagentBuild": "browser"` (packages/console) is instead
// bundled for the browser: src/main.tsx with its CSS into dist/app.js and dist/app.css, and
// src/index.html copied, all its dependencies inside (the gateway serves them air-gapped).
//
//   node scripts/build.mjs            # build once (about a second)
//   node scripts/build.mjs --watch    # rebuild on every change
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const watch = process.argv.includes('--watch');

/** Every workspace folder with a src/ to build. */
function workspaces() {
  return ['packages', 'services'].flatMap((top) =>
    readdirSync(join(ROOT, top))
      .map((name) => join(ROOT, top, name))
      .filter((dir) => existsSync(join(dir, 'src')) && existsSync(join(dir, 'package.json'))),
  );
}

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.ts$/.test(name) && !/\.d\.ts$/.test(name) ? [path] : [];
  });
}

/** Relative imports, extension added; everything else external as written. */
const relativeImports = {
  name: 'relative-imports',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      if (!args.path.startsWith('.')) return { path: args.path, external: true };
      const target = resolve(args.resolveDir, args.path);
      if (existsSync(`${target}.ts`)) return { path: `${args.path}.js`, external: true };
      if (existsSync(join(target, 'index.ts'))) return { path: `${args.path}/index.js`, external: true };
      if (existsSync(target) && statSync(target).isFile()) return { path: args.path, external: true };
      return { errors: [{ text: `cannot resolve ${args.path} from ${relative(ROOT, args.importer)}` }] };
    });
  },
};

/** Whether a workspace is bundled for the browser (see the header). */
function isBrowserBundle(dir) {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).guardagentBuild === 'browser';
}

function browserOptions(dir) {
  return {
    entryPoints: { app: join(dir, 'src', 'main.tsx'), index: join(dir, 'src', 'index.html') },
    outdir: join(dir, 'dist'),
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    loader: { '.html': 'copy' },
    minify: !watch,
    sourcemap: 'linked',
    logLevel: 'warning',
  };
}

function options(dir) {
  if (isBrowserBundle(dir)) return browserOptions(dir);
  return {
    entryPoints: sources(join(dir, 'src')),
    outdir: join(dir, 'dist'),
    outbase: join(dir, 'src'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [relativeImports],
  };
}

const started = performance.now();
const dirs = workspaces();
for (const dir of dirs) rmSync(join(dir, 'dist'), { recursive: true, force: true });
if (watch) {
  for (const dir of dirs) await (await esbuild.context(options(dir))).watch();
  console.error(`build: watching ${dirs.length} workspaces`);
} else {
  const results = await Promise.all(dirs.map((dir) => esbuild.build(options(dir))));
  const errors = results.reduce((n, r) => n + r.errors.length, 0);
  console.error(`build: ${dirs.length} workspaces in ${Math.round(performance.now() - started)} ms`);
  if (errors > 0) process.exit(1);
}
