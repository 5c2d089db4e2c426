import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { SETTINGS_DOCUMENT_FILE } from '../contract';

/** What `npm run build` produces (scripts/bundle-lambdas.mjs, bundle-console.mjs), shipped in the package. */
const BUILT_ASSETS = path.join(__dirname, '..', '..', 'assets');

/**
 * Files every function loads, built once into `assets/shared/` so the package carries one copy
 * (the tracer alone is 110 KiB); each is staged beside the handler, where the bundle requires it.
 */
const SHARED_FOLDER = 'shared';

/** Folders of `assets/` a function serves besides its code (the operator function serves the console), by function folder. */
const SERVED_FOLDERS: Readonly<Record<string, readonly string[]>> = {
  operator: ['console'],
};

/** A function's code as staged once per process: its files, and their digest. */
interface StagedCode {
  readonly folder: string;
  readonly digest: string;
}

let stagingRootOfThisProcess: string | undefined;
const codeStagedThisProcess = new Map<string, StagedCode>();
const stagedThisProcess = new Map<string, string>();

/**
 * The folder to deploy as the function `name` (the folder name of its bundle): its handler, the
 * shared files beside it, the folders it serves and its settings `document`, so each deployed zip
 * is self-contained while the package ships the shared files once. The asset hash follows the code
 * and the document alike: a changed setting deploys as a changed function does.
 *
 * The code is staged once per process; each document's folder holds hard links to it and the
 * document, so the many stacks a test run synthesizes cost a few links each, not copies.
 */
export function stagedFunctionAsset(name: string, document: unknown): string {
  const content = `${JSON.stringify(document, null, 2)}\n`;
  const key = `${name}\0${content}`;
  let staged = stagedThisProcess.get(key);
  if (staged === undefined) {
    const code = stagedCode(name);
    const digest = createHash('sha256').update(`${code.digest}\0${content}`).digest('hex').slice(0, 32);
    staged = stageOnce(path.join(stagingRoot(), digest), (folder) => {
      for (const file of listFiles(code.folder)) linkOrCopy(path.join(code.folder, file), path.join(folder, file));
      fs.writeFileSync(path.join(folder, SETTINGS_DOCUMENT_FILE), content);
    });
    stagedThisProcess.set(key, staged);
  }
  return staged;
}

/** The bundle, the shared files and the served folders of function `name`, staged once per process. */
function stagedCode(name: string): StagedCode {
  let code = codeStagedThisProcess.get(name);
  if (code === undefined) {
    const bundle = path.join(BUILT_ASSETS, name);
    if (!fs.existsSync(path.join(bundle, 'index.js'))) {
      throw new Error(`AgentPipeline: the bundled ${name} handler is missing at ${bundle}; run \`npm run build\` first.`);
    }
    const parts = [
      { from: bundle, to: '.' },
      { from: path.join(BUILT_ASSETS, SHARED_FOLDER), to: '.' },
      ...(SERVED_FOLDERS[name] ?? []).map((folder) => ({ from: path.join(BUILT_ASSETS, folder), to: folder })),
    ];
    const files = parts.flatMap(({ from, to }) => listFiles(from).map((file) => ({ source: path.join(from, file), target: path.join(to, file) })));
    const hash = createHash('sha256');
    for (const { source, target } of files) hash.update(`${target}\0`).update(fs.readFileSync(source));
    const digest = hash.digest('hex').slice(0, 32);
    const folder = stageOnce(path.join(stagingRoot(), `${digest}.code`), (assembling) => {
      for (const { source, target } of files) {
        fs.mkdirSync(path.dirname(path.join(assembling, target)), { recursive: true });
        fs.copyFileSync(source, path.join(assembling, target));
      }
    });
    code = { folder, digest };
    codeStagedThisProcess.set(name, code);
  }
  return code;
}

/**
 * `staged`, assembled by `assemble` unless it exists: under a name of this process's and renamed,
 * so no process ever sees a partial folder. Staged folders are named by their content, so every
 * process with the same bundles and settings shares one.
 */
function stageOnce(staged: string, assemble: (folder: string) => void): string {
  if (fs.existsSync(staged)) return staged;
  const assembling = `${staged}.${process.pid}`;
  fs.rmSync(assembling, { recursive: true, force: true });
  fs.mkdirSync(assembling, { recursive: true });
  assemble(assembling);
  try {
    fs.renameSync(assembling, staged);
  } catch (error) {
    // Another process staged the same content first: its folder is this one.
    fs.rmSync(assembling, { recursive: true, force: true });
    if (!fs.existsSync(staged)) throw error;
  }
  return staged;
}

/** A hard link where the file system allows one (the staging root is one folder), else a copy. */
function linkOrCopy(source: string, target: string): void {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  try {
    fs.linkSync(source, target);
  } catch {
    fs.copyFileSync(source, target);
  }
}

/**
 * What is reused is deployed as-is, so the staging folder must be this user's alone: nobody else
 * may have put a handler in it.
 */
function stagingRoot(): string {
  if (stagingRootOfThisProcess !== undefined) return stagingRootOfThisProcess;
  const uid = process.getuid?.();
  const root = path.join(os.tmpdir(), `cdk-whatsapp-agent-pipeline-assets${uid === undefined ? '' : `-${uid}`}`);
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  const stats = fs.lstatSync(root);
  if (!stats.isDirectory() || (uid !== undefined && (stats.uid !== uid || (stats.mode & 0o077) !== 0))) {
    throw new Error(`AgentPipeline: ${root} stages the function assets and must be a folder of this user's alone (mode 700); remove it and synthesize again.`);
  }
  stagingRootOfThisProcess = root;
  return root;
}

/** The files below `folder`, relative to it, in a stable order. */
function listFiles(folder: string): string[] {
  return fs
    .readdirSync(folder, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? listFiles(path.join(folder, entry.name)).map((file) => path.join(entry.name, file)) : [entry.name]))
    .sort();
}
