import * as esbuild from 'esbuild';
const entry = process.argv[2];
const r = await esbuild.build({
  entryPoints: [entry], bundle: true, platform: 'node', conditions: ['@guardagent/source'], format: 'esm', target: 'node20', write: false, outdir: '/tmp/expout',
  metafile: true, logLevel: 'warning',
  plugins: [{ name: 'ext', setup(b) { b.onResolve({ filter: /^[^./]/ }, (a) => a.path.startsWith('@guardagent/') ? undefined : { path: a.path, external: true }); } }],
});
const ext = new Set();
for (const o of Object.values(r.metafile.outputs)) for (const i of o.imports) if (i.external) ext.add(i.path);
console.log([...ext].sort().join('\n'));
console.log(Object.keys(r.metafile.inputs).filter(f=>!f.includes('node_modules')).length, 'inputs', r.outputFiles.map(f=>f.text.length));
