import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/** What `npm run build` produces (scripts/bundle-lambdas.mjs, bundle-console.mjs), shipped in the package. */
const BUILT_ASSETS = path.join(__dirname, '..', '..', 'assets');

/**
 * Files every function loads, built once into `assets/shared/` so the package carries one copy
 * (the tracer alone is 110 KiB); each is copied beside the handler, where the bundle requires it.
 */
const SHARED_FOLDER = 'shared';

/** Folders of `assets/` a function serves besides its code (the operator function serves the console), by function folder. */
const SERVED_FOLDERS: Readonly<Record<string, readonly string[]>> = {
  operator: ['console'],
};

/** One folder per process holds the staged assets; CDK copies each into the cloud assembly. */
let stagingRoot: string | undefined;

/**
 * The folder to deploy as the function `name` (the folder name of its bundle): its handler, the
 * shared files beside it and the folders it serves, so each deployed zip is self-contained while
 * the package ships the shared files once. Staged once per process; the same content always gives
 * the same asset hash.
 */
export function stagedFunctionAsset(name: string): string {
  const bundle = path.join(BUILT_ASSETS, name);
  if (!fs.existsSync(path.join(bundle, 'index.js'))) {
    throw new Error(`AgentPipeline: the bundled ${name} handler is missing at ${bundle}; run \`npm run build\` first.`);
  }
  stagingRoot ??= createStagingRoot();
  const staged = path.join(stagingRoot, name);
  if (!fs.existsSync(staged)) {
    // Assembled beside its final name and renamed, so a failed copy never leaves a partial asset.
    const assembling = `${staged}.assembling`;
    fs.rmSync(assembling, { recursive: true, force: true });
    fs.cpSync(bundle, assembling, { recursive: true });
    fs.cpSync(path.join(BUILT_ASSETS, SHARED_FOLDER), assembling, { recursive: true });
    for (const folder of SERVED_FOLDERS[name] ?? []) {
      fs.cpSync(path.join(BUILT_ASSETS, folder), path.join(assembling, folder), { recursive: true });
    }
    fs.renameSync(assembling, staged);
  }
  return staged;
}

function createStagingRoot(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-pipeline-assets-'));
  process.once('exit', () => fs.rmSync(root, { recursive: true, force: true }));
  return root;
}
