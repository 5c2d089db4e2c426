// Pre-bundles the Lambda handlers into `assets/<name>/index.js` at build time, so the published
// package carries ready-to-deploy code and consumers need neither esbuild nor Docker to synth.
// What every function carries alike is built once into `assets/shared/`: the package ships one
// copy, and the construct copies it into each function's asset at synth
// (lib/private/function-assets.ts), so every deployed zip still holds all its function loads.
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';
import { writeMetafile } from './bundle-metafile.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** One bundle per function; the folder name is what the construct passes to `Code.fromAsset`. */
const FUNCTIONS = ['webhook', 'eum-inbound', 'orchestrator', 'operator', 'handoff-sweeper', 'idle-sweeper', 'crm-sync', 'evaluator'];

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
    bowser: shim('no-browser-user-agent.mjs'),
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
  report('assets/shared', result.metafile);
  await writeMetafile('tracer', result.metafile);
}

/**
 * What a function loads only for some events is a file of its own beside `index.js`, by file name:
 * the module the function reaches only through a `require` of it, at the point of use. The rule
 * for media: the compositions reach `lambda/composition/media.ts` only through the `require` in
 * `lambda/composition/media-on-demand.ts`, so everything reachable only from it — the S3 store,
 * the media sources, the download step, and whatever media code joins them later — is in
 * `media.js`, which a text-only turn never loads. The same for the scenario format's checker
 * (Ajv and the format's JSON Schema): the operator reaches it only through the `require` in
 * `lambda/composition/scenario-format-on-demand.ts`, so it is `scenario-format.js`, which only a
 * request that checks a scenario loads. What such a file shares with the handler stays in the
 * handler's files, one copy that both load.
 */
const ON_DEMAND = {
  media: path.join(root, 'lambda', 'composition', 'media.ts'),
  'scenario-format': path.join(root, 'lambda', 'core', 'application', 'evaluation', 'scenario-format.ts'),
};

/** Each such `require` becomes one of the file beside the handler (`./media.js`); `required` collects the files the function needs. */
function onDemandFiles(required) {
  return {
    name: 'on-demand-files',
    setup(build) {
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (args.kind !== 'require-call') return undefined;
        const target = path.resolve(args.resolveDir, args.path).replace(/\.[jt]s$/, '');
        const name = Object.keys(ON_DEMAND).find((file) => ON_DEMAND[file].replace(/\.ts$/, '') === target);
        if (name === undefined) return undefined;
        required.add(name);
        return { path: `./${name}.js`, external: true };
      });
    },
  };
}

/**
 * A handler that requires no file on demand is one file, `index.js`. One that does is built again
 * with those files, together, so that they share one copy of each module: esbuild puts what both
 * reach in a part both require (`part-….js`, loaded with `index.js`). It splits ES modules only,
 * so each file is then turned into CommonJS on its own, as Lambda loads `index.js`.
 */
async function bundle(name) {
  const outdir = path.join(root, 'assets', name);
  // Start from an empty folder: a stale file left next to index.js would change the asset hash.
  await rm(outdir, { recursive: true, force: true });
  const entry = path.join(root, 'lambda', name, 'index.ts');
  const required = new Set();
  const plugins = [packageVersionOnly, tracerBesideHandler, onDemandFiles(required)];
  const single = await build({ ...COMMON_OPTIONS, entryPoints: [entry], outfile: path.join(outdir, 'index.js'), write: false, plugins });
  const result =
    required.size === 0
      ? single
      : await build({
          ...COMMON_OPTIONS,
          entryPoints: { index: entry, ...Object.fromEntries([...required].map((file) => [file, ON_DEMAND[file]])) },
          outdir,
          format: 'esm',
          splitting: true,
          chunkNames: 'part-[hash]',
          write: false,
          plugins,
        });
  await mkdir(outdir, { recursive: true });
  const sizes = new Map();
  for (const file of result.outputFiles) {
    const code = result === single ? file.text : (await transform(bindHelpersOnce(file.text, result.metafile), { format: 'cjs', platform: 'node', target: COMMON_OPTIONS.target, minify: true, legalComments: 'eof' })).code;
    await writeFile(file.path, code);
    sizes.set(path.relative(root, file.path), Buffer.byteLength(code));
  }
  report(`assets/${name}`, result.metafile, sizes);
  await writeMetafile(name, result.metafile);
}

/**
 * esbuild's own helpers (`__name` for `keepNames`, the CommonJS wrappers) go to a part without
 * input files once two files use them. Turned into CommonJS, each of the ~1,500 calls to an import
 * becomes `(0,part.a)(…)` to keep ES live bindings (+6 KiB in `index.js`); the helpers are
 * functions defined once and never reassigned, so their import is bound once instead.
 */
function bindHelpersOnce(text, metafile) {
  const helperParts = Object.entries(metafile.outputs).filter(([file, output]) => path.basename(file).startsWith('part-') && Object.keys(output.inputs).length === 0).map(([file]) => path.basename(file));
  return helperParts.reduce(
    (code, part) => code.replace(new RegExp(`import\\{([^}]*)\\}from"\\./${part.replace('.', '\\.')}";`), (_, bindings) => `const{${bindings.replaceAll(' as ', ':')}}=require("./${part}");`),
    text,
  );
}

/** Each file written, with its size as written (`sizes`) and what went into it. */
function report(location, metafile, sizes = new Map()) {
  for (const [file, output] of Object.entries(metafile.outputs)) {
    const bytes = sizes.get(file) ?? output.bytes;
    console.log(`${location}/${path.basename(file)}  ${(bytes / 1024).toFixed(1)} KiB  (${Object.keys(output.inputs).length} input files)`);
    if (REPORT) printLargestPackages(output);
  }
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

/**
 * A part two functions have alike (esbuild's helpers, the stand-ins the SDK imports on demand) is
 * named by its content: one copy goes to the shared folder, which the construct copies beside
 * each handler, as it does the tracer.
 */
async function shareIdenticalParts() {
  const folders = new Map();
  for (const name of FUNCTIONS) {
    for (const file of await readdir(path.join(root, 'assets', name))) if (file.startsWith('part-')) folders.set(file, [...(folders.get(file) ?? []), name]);
  }
  for (const [file, names] of folders) {
    if (names.length < 2) continue;
    await rename(path.join(root, 'assets', names[0], file), path.join(root, 'assets', 'shared', file));
    for (const name of names.slice(1)) await rm(path.join(root, 'assets', name, file));
    console.log(`assets/shared/${file}  (one copy for ${names.join(', ')})`);
  }
}

await buildTracer();
for (const name of FUNCTIONS) {
  await bundle(name);
}
await shareIdenticalParts();
