import { execFile } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One bundle under assets/: the script that makes it, the file it writes last, and its esbuild metafile. */
interface AssetBundle {
  readonly name: string;
  readonly script: string;
  readonly output: string;
  /** Files the script reads besides esbuild's inputs (e.g. an HTML template). */
  readonly templates?: readonly string[];
  /** `.bundles/<name>.meta.json`: what went into the bundle (scripts/bundle-metafile.mjs). */
  readonly metafile: string;
}

const FUNCTIONS_SCRIPT = 'scripts/bundle-lambdas.mjs';
const CONSOLE_SCRIPT = 'scripts/bundle-console.mjs';

/** What `npm start` finds built, and what it bundles first. */
export interface LocalAssetsReport {
  /** The bundles that were missing or older than their sources, with why. */
  readonly rebuilt: readonly { readonly name: string; readonly reason: string }[];
  readonly elapsedMs: number;
}

/**
 * Bundles the functions and the operator console (scripts/bundle-*.mjs, esbuild only: no jsii) when
 * assets/ lacks them or they are older than a file that went into them — so a fresh clone or a
 * changed source runs `npm start` without a separate `npm run bundle`.
 */
export async function bundleStaleAssets(root: string): Promise<LocalAssetsReport> {
  const started = Date.now();
  const stale = await staleAssets(root);
  const scripts = [...new Set(stale.map((bundle) => bundle.script))];
  for (const script of scripts) {
    try {
      await run(process.execPath, [path.join(root, script)], { cwd: root });
    } catch (error) {
      throw new Error(`${script} failed: ${(error as { stderr?: string }).stderr?.trim() || (error as Error).message}`);
    }
  }
  return { rebuilt: stale.map(({ name, reason }) => ({ name, reason })), elapsedMs: Date.now() - started };
}

/** The bundles `bundleStaleAssets` would make, with why, in the order it makes them. */
export async function staleAssets(root: string): Promise<{ readonly name: string; readonly script: string; readonly reason: string }[]> {
  const bundles = await assetBundles(root);
  const reasons = await Promise.all(bundles.map((bundle) => staleness(root, bundle)));
  return bundles.flatMap(({ name, script }, index) => {
    const reason = reasons[index];
    return reason === undefined ? [] : [{ name, script, reason }];
  });
}

/** Every function (a `lambda/<name>/index.ts` handler) and the console. */
async function assetBundles(root: string): Promise<AssetBundle[]> {
  const entries = await readdir(path.join(root, 'lambda'), { withFileTypes: true });
  const functions: AssetBundle[] = [];
  for (const entry of entries.filter((candidate) => candidate.isDirectory())) {
    if (await exists(path.join(root, 'lambda', entry.name, 'index.ts'))) {
      functions.push({ name: entry.name, script: FUNCTIONS_SCRIPT, output: `assets/${entry.name}/index.js`, metafile: `.bundles/${entry.name}.meta.json` });
    }
  }
  const operatorConsole: AssetBundle = {
    name: 'console',
    script: CONSOLE_SCRIPT,
    output: 'assets/console/index.html',
    templates: ['console/index.html'],
    metafile: '.bundles/console.meta.json',
  };
  return [...functions, operatorConsole];
}

/** Why `bundle` must be made again, or `undefined` when it is up to date. */
async function staleness(root: string, bundle: AssetBundle): Promise<string | undefined> {
  const builtAt = await modification(path.join(root, bundle.output));
  if (builtAt === undefined) return `${bundle.output} missing`;
  let inputs: string[];
  try {
    inputs = Object.keys((JSON.parse(await readFile(path.join(root, bundle.metafile), 'utf8')) as { inputs: Record<string, unknown> }).inputs);
  } catch {
    return `${bundle.metafile} missing`;
  }
  for (const input of [bundle.script, ...(bundle.templates ?? []), ...inputs]) {
    const modified = await modification(path.join(root, input));
    if (modified === undefined) return `${input} is gone`;
    if (modified > builtAt) return `${input} changed`;
  }
  return undefined;
}

async function modification(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).mtimeMs;
  } catch {
    return undefined;
  }
}

async function exists(file: string): Promise<boolean> {
  return (await modification(file)) !== undefined;
}
