import { execFile } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One bundle under assets/: the script that makes it, the files it must have written, and its esbuild metafile. */
interface AssetBundle {
  readonly name: string;
  readonly script: string;
  readonly outputs: readonly string[];
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
  const bundles = await assetBundles(root);
  const stale = (await Promise.all(bundles.map(async (bundle) => ({ name: bundle.name, script: bundle.script, reason: await staleness(root, bundle) })))).filter(
    (bundle): bundle is { name: string; script: string; reason: string } => bundle.reason !== undefined,
  );
  // The functions' script empties assets/operator, where the console script puts the operator function's copy: the console follows it.
  const scripts = stale.some((bundle) => bundle.script === FUNCTIONS_SCRIPT) ? [FUNCTIONS_SCRIPT, CONSOLE_SCRIPT] : stale.length > 0 ? [CONSOLE_SCRIPT] : [];
  for (const script of scripts) {
    try {
      await run(process.execPath, [path.join(root, script)], { cwd: root });
    } catch (error) {
      throw new Error(`${script} failed: ${(error as { stderr?: string }).stderr?.trim() || (error as Error).message}`);
    }
  }
  return { rebuilt: stale.map(({ name, reason }) => ({ name, reason })), elapsedMs: Date.now() - started };
}

/** Every function (a `lambda/<name>/index.ts` handler) and the console. */
async function assetBundles(root: string): Promise<AssetBundle[]> {
  const entries = await readdir(path.join(root, 'lambda'), { withFileTypes: true });
  const functions: AssetBundle[] = [];
  for (const entry of entries.filter((candidate) => candidate.isDirectory())) {
    if (await exists(path.join(root, 'lambda', entry.name, 'index.ts'))) {
      functions.push({ name: entry.name, script: FUNCTIONS_SCRIPT, outputs: [`assets/${entry.name}/index.js`], metafile: `.bundles/${entry.name}.meta.json` });
    }
  }
  const operatorConsole: AssetBundle = {
    name: 'console',
    script: CONSOLE_SCRIPT,
    outputs: ['assets/console/index.html', 'assets/operator/console/index.html'],
    templates: ['console/index.html'],
    metafile: '.bundles/console.meta.json',
  };
  return [...functions, operatorConsole];
}

/** Why `bundle` must be made again, or `undefined` when it is up to date. */
async function staleness(root: string, bundle: AssetBundle): Promise<string | undefined> {
  const builtAt = await oldestModification(bundle.outputs.map((file) => path.join(root, file)));
  if (builtAt === undefined) return `${bundle.outputs.join(' or ')} missing`;
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

async function oldestModification(files: readonly string[]): Promise<number | undefined> {
  const times = await Promise.all(files.map(modification));
  return times.includes(undefined) ? undefined : Math.min(...(times as number[]));
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
