import { createHash } from 'crypto';
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

let stagingRootOfThisProcess: string | undefined;
const stagedThisProcess = new Map<string, string>();

/**
 * The folder to deploy as the function `name` (the folder name of its bundle): its handler, the
 * shared files beside it and the folders it serves, so each deployed zip is self-contained while
 * the package ships the shared files once. The same content always gives the same asset hash.
 */
export function stagedFunctionAsset(name: string): string {
  const bundle = path.join(BUILT_ASSETS, name);
  if (!fs.existsSync(path.join(bundle, 'index.js'))) {
    throw new Error(`AgentPipeline: the bundled ${name} handler is missing at ${bundle}; run \`npm run build\` first.`);
  }
  let staged = stagedThisProcess.get(name);
  if (staged === undefined) {
    staged = stageOnce([
      { from: bundle, to: '.' },
      { from: path.join(BUILT_ASSETS, SHARED_FOLDER), to: '.' },
      ...(SERVED_FOLDERS[name] ?? []).map((folder) => ({ from: path.join(BUILT_ASSETS, folder), to: folder })),
    ]);
    stagedThisProcess.set(name, staged);
  }
  return staged;
}

interface AssetPart {
  readonly from: string;
  /** Where the part goes in the staged folder. */
  readonly to: string;
}

function stageOnce(parts: readonly AssetPart[]): string {
  const files = parts.flatMap(({ from, to }) => listFiles(from).map((file) => ({ source: path.join(from, file), target: path.join(to, file) })));
  const digest = createHash('sha256');
  for (const { source, target } of files) digest.update(`${target}\0`).update(fs.readFileSync(source));
  stagingRootOfThisProcess ??= stagingRoot();
  const staged = path.join(stagingRootOfThisProcess, digest.digest('hex').slice(0, 32));
  if (fs.existsSync(staged)) return staged;
  // Assembled under a name of this process's and renamed, so no process ever sees a partial folder.
  const assembling = `${staged}.${process.pid}`;
  fs.rmSync(assembling, { recursive: true, force: true });
  for (const { source, target } of files) {
    fs.mkdirSync(path.dirname(path.join(assembling, target)), { recursive: true });
    fs.copyFileSync(source, path.join(assembling, target));
  }
  try {
    fs.renameSync(assembling, staged);
  } catch (error) {
    // Another process staged the same content first: its folder is this one.
    fs.rmSync(assembling, { recursive: true, force: true });
    if (!fs.existsSync(staged)) throw error;
  }
  return staged;
}

/**
 * Staged folders are named by their content, so every process and every build with the same
 * bundles shares one. What is reused is deployed as-is, so the folder must be this user's alone:
 * nobody else may have put a handler in it.
 */
function stagingRoot(): string {
  const uid = process.getuid?.();
  const root = path.join(os.tmpdir(), `cdk-whatsapp-agent-pipeline-assets${uid === undefined ? '' : `-${uid}`}`);
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  const stats = fs.lstatSync(root);
  if (!stats.isDirectory() || (uid !== undefined && (stats.uid !== uid || (stats.mode & 0o077) !== 0))) {
    throw new Error(`AgentPipeline: ${root} stages the function assets and must be a folder of this user's alone (mode 700); remove it and synthesize again.`);
  }
  return root;
}

/** The files below `folder`, relative to it, in a stable order. */
function listFiles(folder: string): string[] {
  return fs
    .readdirSync(folder, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? listFiles(path.join(folder, entry.name)).map((file) => path.join(entry.name, file)) : [entry.name]))
    .sort();
}
