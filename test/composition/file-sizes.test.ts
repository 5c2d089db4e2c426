// The house keeps every runtime file short enough to read in one sitting: a use case that grows
// past the limit is split by concept (a gate, a use case per concern), not left to grow back.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const MAX_LINES = 380;
/** The environment reader gives way to the deployment plan, its one reader, in the same issue (#39). */
const PENDING = new Set(['lambda/composition/settings-from-environment.ts']);

function sourceFiles(folder: string): string[] {
  return fs.readdirSync(path.join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(relative);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [relative] : [];
  });
}

test(`no file of the runtime (lambda/) is over ${MAX_LINES} lines`, () => {
  const files = sourceFiles('lambda');
  const lines = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').length - 1;
  expect(files.length).toBeGreaterThan(100);
  expect(files.filter((file) => !PENDING.has(file) && lines(file) > MAX_LINES).map((file) => `${file}: ${lines(file)} lines`)).toEqual([]);
});
