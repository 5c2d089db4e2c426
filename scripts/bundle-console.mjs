// Builds the operator console (console/) into `assets/console/`: index.html plus content-hashed
// script and stylesheet under assets/, so the operator function can serve the hashed files as
// immutable and only index.html has to be revalidated. Nothing is fetched at run time. The operator
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
const outputs = Object.keys(result.metafile.outputs).map((file) => path.relative(path.join(outdir, 'assets'), path.resolve(root, file)));
const js = outputs.find((file) => file.endsWith('.js'));
const css = outputs.find((file) => file.endsWith('.css'));
if (js === undefined || css === undefined) throw new Error(`The console build produced ${outputs.join(', ')}; expected one .js and one .css`);
const template = await readFile(path.join(source, 'index.html'), 'utf8');
await mkdir(outdir, { recursive: true });
await writeFile(path.join(outdir, 'index.html'), template.replace('{{js}}', js).replace('{{css}}', css));

// What an operator downloads, as the operator function serves it (gzip) and as a CDN in front of it
// may (brotli). The budget is generous on purpose: it catches a dependency or a copy that bloats the
// console, not a few new words.
const DOWNLOAD_BUDGET_GZIP_KIB = 50;
let raw = 0;
let gzipped = 0;
let brotli = 0;
for (const file of ['index.html', `assets/${js}`, `assets/${css}`]) {
  const content = await readFile(path.join(outdir, file));
  raw += content.length;
  gzipped += gzipSync(content, { level: 9 }).length;
  brotli += brotliCompressSync(content, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }).length;
}
const kib = (bytes) => (bytes / 1024).toFixed(1);
console.log(`assets/console/  ${kib(raw)} KiB  (${kib(gzipped)} KiB gzip, ${kib(brotli)} KiB brotli; index.html, ${js}, ${css})`);
if (gzipped > DOWNLOAD_BUDGET_GZIP_KIB * 1024) {
  throw new Error(`The console's download is ${kib(gzipped)} KiB gzipped, over its budget of ${DOWNLOAD_BUDGET_GZIP_KIB} KiB: see .bundles/console.meta.json for what grew, and drop it or split it out`);
}
