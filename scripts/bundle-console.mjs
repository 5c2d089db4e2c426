// Builds the operator console (console/) into `assets/console/`: index.html plus content-hashed
// script, stylesheet and one script per language's words under assets/, so the operator function can
// serve the hashed files as immutable and only index.html has to be revalidated. Nothing is fetched at run time. The operator
// function serves it: the construct copies this folder into the operator's asset at synth
// (lib/private/function-assets.ts), so the package ships it once.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { writeMetafile } from './bundle-metafile.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'console');
const outdir = path.join(root, 'assets', 'console');

await rm(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: { app: path.join(source, 'src', 'main.tsx') },
  outdir: path.join(outdir, 'assets'),
  entryNames: '[name]-[hash]',
  // Each language's words are imported when the console speaks it: a chunk of their own.
  splitting: true,
  chunkNames: '[name]-[hash]',
  bundle: true,
  platform: 'browser',
  format: 'esm',
  // Browsers of the last few years; operators use current phones and desktops.
  target: ['es2022', 'chrome111', 'firefox111', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  sourcemap: false,
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
});

await writeMetafile('console', result.metafile);
const assetsDirectory = path.join(outdir, 'assets');
const outputs = Object.entries(result.metafile.outputs).map(([file, output]) => ({ name: path.relative(assetsDirectory, path.resolve(root, file)), output }));
const js = outputs.find(({ output }) => output.entryPoint !== undefined)?.name;
const css = outputs.find(({ name }) => name.endsWith('.css'))?.name;
// The default language's words, preloaded by the page so the first paint does not wait on a second round trip.
const defaultWords = outputs.find(({ output }) => Object.hasOwn(output.inputs, 'console/src/dictionaries/pt.ts'))?.name;
if (js === undefined || css === undefined || defaultWords === undefined) {
  throw new Error(`The console build produced ${outputs.map(({ name }) => name).join(', ')}; expected an entry script, a .css and the Portuguese words' script`);
}
// The entry's and the words' static imports (the code they share with the admin screens' chunk)
// load with them: they count.
const byName = new Map(outputs.map(({ name, output }) => [name, output]));
const loadedWith = (name, seen = new Set()) => {
  if (seen.has(name)) return seen;
  seen.add(name);
  for (const imported of byName.get(name)?.imports ?? []) {
    if (imported.kind === 'import-statement') loadedWith(path.relative(assetsDirectory, path.resolve(root, imported.path)), seen);
  }
  return seen;
};
// Preloaded beside the words, so the browser fetches the shared code while it parses the entry.
const sharedChunks = [...loadedWith(js)].filter((name) => name !== js);
const preloads = sharedChunks.map((name) => `<link rel="modulepreload" href="/assets/${name}" />`).join('\n    ');
const template = await readFile(path.join(source, 'index.html'), 'utf8');
await mkdir(outdir, { recursive: true });
await writeFile(path.join(outdir, 'index.html'), template.replace('{{js}}', js).replace('{{css}}', css).replace('{{words}}', defaultWords).replace('{{preloads}}', preloads));

// What an operator downloads on first load (the page, the entry script and what it imports, the
// stylesheet and one language; not the admin screens, loaded when an admin opens one), as the operator function serves it (gzip) and as a CDN in front of it may (brotli). The
// budget is generous on purpose: it catches a dependency or a copy that bloats the console, not a few
// new words.
const DOWNLOAD_BUDGET_GZIP_KIB = 40;
const kib = (bytes) => (bytes / 1024).toFixed(1);
let raw = 0;
let gzipped = 0;
let brotli = 0;
const firstLoad = new Set([...loadedWith(js), ...loadedWith(defaultWords), css]);
for (const file of ['index.html', ...[...firstLoad].map((name) => `assets/${name}`)]) {
  const content = await readFile(path.join(outdir, file));
  const sizes = [content.length, gzipSync(content, { level: 9 }).length, brotliCompressSync(content, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }).length];
  console.log(`  ${file.padEnd(28)} ${kib(sizes[0]).padStart(6)} KiB  (${kib(sizes[1])} KiB gzip, ${kib(sizes[2])} KiB brotli)`);
  raw += sizes[0];
  gzipped += sizes[1];
  brotli += sizes[2];
}
console.log(`assets/console/ first load  ${kib(raw)} KiB  (${kib(gzipped)} KiB gzip, ${kib(brotli)} KiB brotli)`);
if (gzipped > DOWNLOAD_BUDGET_GZIP_KIB * 1024) {
  throw new Error(`The console's download is ${kib(gzipped)} KiB gzipped, over its budget of ${DOWNLOAD_BUDGET_GZIP_KIB} KiB: see .bundles/console.meta.json for what grew, and drop it or split it out`);
}
