// The house keeps every file of the runtime, the construct and the console short enough to read in one sitting: a
// use case or a view that grows past the limit is split by concept, not left to grow back.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const MAX_LINES = 380;
/** Word tables, one line per key of the console's words: as long as the console has words. */
const isWordTable = (file: string) => file.startsWith('console/src/dictionaries/');

function sourceFiles(folder: string): string[] {
  return fs.readdirSync(path.join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(relative);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [relative] : [];
  });
}

const lines = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').length - 1;

test.each(['lambda', 'lib', 'console/src'])(`no file of %s/ is over ${MAX_LINES} lines`, (folder) => {
  const files = sourceFiles(folder).filter((file) => !isWordTable(file));
  expect(files.length).toBeGreaterThan(20);
  expect(files.filter((file) => lines(file) > MAX_LINES).map((file) => `${file}: ${lines(file)} lines`)).toEqual([]);
});
