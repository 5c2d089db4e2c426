import * as fs from 'node:fs';
import * as path from 'node:path';

// What a function's bundle is made of, from the metafile `npm run build` leaves in `.bundles/`
// (scripts/bundle-lambdas.mjs): its output files, what each holds and what each requires.

const repoRoot = path.join(__dirname, '..', '..');

export interface BundleOutput {
  readonly inputs: Record<string, unknown>;
  readonly imports: readonly { readonly path: string; readonly kind: string; readonly external?: boolean }[];
}

/** The output files of function `name`'s bundle, by file name. */
function bundleOutputs(name: string): Map<string, BundleOutput> {
  const metafile = JSON.parse(fs.readFileSync(path.join(repoRoot, '.bundles', `${name}.meta.json`), 'utf8')) as { outputs: Record<string, BundleOutput> };
  return new Map(Object.entries(metafile.outputs).map(([file, output]) => [path.basename(file), output]));
}

/** `file` and every file it requires at its top, transitively. */
function loadedWith(outputs: Map<string, BundleOutput>, file: string, loaded = new Set<string>()): Set<string> {
  if (loaded.has(file)) return loaded;
  loaded.add(file);
  for (const imported of outputs.get(file)!.imports) {
    if (imported.kind === 'import-statement' && !imported.external) loadedWith(outputs, path.basename(imported.path), loaded);
  }
  return loaded;
}

/** The source modules and packages' files bundled into `files`. */
const inputsOf = (outputs: Map<string, BundleOutput>, files: Iterable<string>) => new Set([...files].flatMap((file) => Object.keys(outputs.get(file)!.inputs)));

/**
 * What the handler loads at a cold start and what the file `onDemand` beside it adds when it is
 * required: the inputs of each, with no module in both (a module in both would be two copies).
 */
export function onDemandSplit(name: string, onDemand: string): { readonly handlerFiles: Set<string>; readonly handlerInputs: Set<string>; readonly onDemandInputs: Set<string>; readonly outputs: Map<string, BundleOutput> } {
  const outputs = bundleOutputs(name);
  const handlerFiles = loadedWith(outputs, 'index.js');
  const onDemandInputs = inputsOf(outputs, [...loadedWith(outputs, onDemand)].filter((file) => !handlerFiles.has(file)));
  return { handlerFiles, handlerInputs: inputsOf(outputs, handlerFiles), onDemandInputs, outputs };
}

/** The inputs of the files function `name`'s handler loads at a cold start. */
export function handlerInputs(name: string): Set<string> {
  const outputs = bundleOutputs(name);
  return inputsOf(outputs, loadedWith(outputs, 'index.js'));
}
