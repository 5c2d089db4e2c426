// Keeps each bundle's esbuild metafile (what went into it) in `.bundles/`, outside the package,
// so the tests can check that no development-only dependency (e.g. the AGPL policy simulator the
// permission conformance test uses) is ever bundled or shipped.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const METAFILE_DIRECTORY = path.join(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'), '.bundles');

/** Writes `metafile` as `.bundles/<name>.meta.json`. */
export async function writeMetafile(name, metafile) {
  await mkdir(METAFILE_DIRECTORY, { recursive: true });
  await writeFile(path.join(METAFILE_DIRECTORY, `${name}.meta.json`), JSON.stringify(metafile));
}
