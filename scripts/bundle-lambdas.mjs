// Pre-bundles the Lambda handlers into `assets/<name>/index.js` at build time, so the published
// package carries ready-to-deploy code and consumers need neither esbuild nor Docker to synth.
// What every function carries alike is built once into `assets/shared/`: the package ships one
// copy, and the construct copies it into each function's asset at synth
// (lib/private/function-assets.ts), so every deployed zip still holds all its function loads.
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { writeMetafile } from './bundle-metafile.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** One bundle per function; the folder name is what the construct passes to `Code.fromAsset`. */
const FUNCTIONS = ['webhook', 'eum-inbound', 'orchestrator', 'operator', 'handoff-sweeper', 'idle-sweeper', 'crm-sync'];

const shim = (file) => path.join(root, 'scripts', 'bundle-shims', file);

/**
 * The AWS SDK clients and the X-Ray SDK import their whole package.json (2 KiB each: scripts,
 * dependencies, …) for its name and version, which go into the user agent and the segment's SDK
 * info. The bundles carry only those two fields.
 */
const packageVersionOnly = {
  name: 'package-version-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/](@aws-sdk[\\/][^\\/]+|aws-xray-sdk-core)[\\/]package\.json$/ }, async (args) => {
      const { name, version } = JSON.parse(await readFile(args.path, 'utf8'));
      return { contents: JSON.stringify({ name, version }), loader: 'json' };
    });
  },
};

/**
 * Powertools' tracer and the X-Ray SDK under it are a file of their own next to each handler once
 * staged, `tracer.js`, required only where the function traces (lambda/core/adapters/observability/powertools.ts):
 * with tracing off they are never compiled, and the X-Ray SDK's async hook is never installed.
 */
const TRACER_MODULE = '@aws-lambda-powertools/tracer';
const TRACER_FILE = 'tracer.js';

const tracerBesideHandler = {
  name: 'tracer-beside-handler',
  setup(build) {
    build.onResolve({ filter: new RegExp(`^${TRACER_MODULE}$`) }, () => ({ path: `./${TRACER_FILE}`, external: true }));
  },
};

/** What every bundle shares: Node 24, CommonJS, minified, the SDK's ESM entry points and the stand-ins. */
const COMMON_OPTIONS = {
  bundle: true,
  platform: 'node',
  // Must follow the construct's runtime (Runtime.NODEJS_24_X).
  target: 'node24',
  format: 'cjs',
  minify: true,
  // Minifying renames classes, and the SDK and Powertools compare constructor names (the SDK's
  // NoOpLogger and its exceptions' instanceof fallback, Powertools' BatchProcessor): they must survive.
  keepNames: true,
  // No source maps: they would triple the asset and only help with NODE_OPTIONS=--enable-source-maps,
  // which slows every error path. keepNames keeps stack traces readable enough.
  sourcemap: false,
  // The AWS SDK is bundled on purpose (no `external`): the code runs against the SDK version it
  // was tested with rather than whatever the Lambda runtime happens to ship.
  // ESM entry points of the SDK tree-shake far better than its CommonJS builds.
  mainFields: ['module', 'main'],
  // What the bundles carry but can never use in Lambda, replaced by a small stand-in (each file
  // says why; docs/PERFORMANCE.md records the savings).
  alias: {
    '@aws-sdk/credential-provider-node': shim('credential-provider-env-only.mjs'),
    semver: shim('semver-gte.cjs'),
    '@smithy/core/event-streams': shim('no-event-streams.mjs'),
  },
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
};

/** The tracer's file is the same for every function: built once into the shared folder. */
async function buildTracer() {
  const outdir = path.join(root, 'assets', 'shared');
  await rm(outdir, { recursive: true, force: true });
  const result = await build({
    ...COMMON_OPTIONS,
    stdin: { contents: `module.exports = require('${TRACER_MODULE}');`, resolveDir: root, sourcefile: 'tracer-entry.js' },
    outfile: path.join(outdir, TRACER_FILE),
    plugins: [packageVersionOnly],
  });
  report(`assets/shared/${TRACER_FILE}`, result.metafile);
  await writeMetafile('tracer', result.metafile);
}

async function bundle(name) {
  const outdir = path.join(root, 'assets', name);
  // Start from an empty folder: a stale file left next to index.js would change the asset hash.
  await rm(outdir, { recursive: true, force: true });
  const result = await build({
    ...COMMON_OPTIONS,
    entryPoints: [path.join(root, 'lambda', name, 'index.ts')],
    outfile: path.join(outdir, 'index.js'),
    plugins: [packageVersionOnly, tracerBesideHandler],
  });
  report(`assets/${name}/index.js`, result.metafile);
  await writeMetafile(name, result.metafile);
}

function report(file, metafile) {
  const output = Object.values(metafile.outputs)[0];
  console.log(`${file}  ${(output.bytes / 1024).toFixed(1)} KiB  (${Object.keys(metafile.inputs).length} input files)`);
  if (REPORT) printLargestPackages(output);
}

/** `--report`: what each bundle carries, by package, largest first — where the next cut is. */
const REPORT = process.argv.includes('--report');

function printLargestPackages(output) {
  const bytesByPackage = new Map();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    // The innermost node_modules package, or the project folder for the project's own code.
    const packageName = input.match(/.*node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ?? input.split('/').slice(0, 3).join('/');
    bytesByPackage.set(packageName, (bytesByPackage.get(packageName) ?? 0) + bytesInOutput);
  }
  const largest = [...bytesByPackage].sort(([, a], [, b]) => b - a).slice(0, 20);
  for (const [packageName, bytes] of largest) console.log(`  ${(bytes / 1024).toFixed(1).padStart(7)} KiB  ${packageName}`);
}

await buildTracer();
for (const name of FUNCTIONS) {
  await bundle(name);
}
