// The shape of the runtime's imports: the layers of lambda/core point one way only, the functions are
// put together in lambda/composition alone, the console reaches outside itself only for the
// contract, and no module imports itself back through others (dynamic imports included).
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..');
const SOURCE_FOLDERS = ['lambda', 'lib', 'local', 'bench', 'bin', 'console'];

/** Every .ts and .tsx file of the folders, with the project files it imports (type-only and dynamic imports included). */
function importGraph(folders: readonly string[]): Map<string, string[]> {
  const files = folders.flatMap((folder) => tsFiles(path.join(ROOT, folder)));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map(({ fileName }) => fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => resolve(path.resolve(path.dirname(file), specifier), known))
      .filter((target): target is string => target !== undefined);
    graph.set(relative(file), [...new Set(targets.map(relative))]);
  }
  return graph;
}

function tsFiles(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : tsFiles(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The source a specifier names: without an extension, or with the `.js` a bundler-resolved import (the console's) gives its compiled name. */
function resolve(specifier: string, known: ReadonlySet<string>): string | undefined {
  const base = specifier.replace(/\.js$/, '');
  return [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')].find((candidate) => known.has(candidate));
}

const relative = (file: string) => path.relative(ROOT, file).split(path.sep).join('/');

/** The import circles: each strongly connected group of more than one file, or a file importing itself. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || graph.get(file)?.includes(file)) found.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

const graph = importGraph(SOURCE_FOLDERS);
const importsOf = (prefix: string) => [...graph].filter(([file]) => file.startsWith(prefix)).flatMap(([file, targets]) => targets.map((target) => `${file} -> ${target}`));

test('no import circle in the runtime, the construct, the local runtime, the benchmarks, the command-line tools or the console', () => {
  expect(circles(graph)).toEqual([]);
});

test('the graph reads the console, its .tsx views and its dynamic imports', () => {
  expect(graph.get('console/src/main.tsx')).toContain('console/src/app.tsx');
  expect(graph.get('console/src/i18n.ts')).toEqual(expect.arrayContaining(['console/src/dictionaries/pt.ts', 'console/src/dictionaries/en.ts', 'console/src/dictionaries/es.ts']));
});

test('the console imports nothing of the project outside itself but the contract', () => {
  expect(importsOf('console/').filter((edge) => !['console/', 'lib/contract/'].some((prefix) => edge.split(' -> ')[1].startsWith(prefix)))).toEqual([]);
});

test.each([
  ['lambda/core/domain/', ['lambda/core/domain/', 'lib/contract/']],
  ['lambda/core/ports/', ['lambda/core/domain/', 'lambda/core/ports/', 'lib/contract/']],
  ['lambda/core/application/', ['lambda/core/domain/', 'lambda/core/ports/', 'lambda/core/application/', 'lib/contract/']],
  ['lambda/core/adapters/', ['lambda/core/domain/', 'lambda/core/ports/', 'lambda/core/adapters/', 'lib/contract/']],
])('%s imports only the layers before it', (layer, allowed) => {
  expect(importsOf(layer).filter((edge) => !allowed.some((prefix) => edge.split(' -> ')[1].startsWith(prefix)))).toEqual([]);
});

test('only the entry points of the functions import the composition', () => {
  const composers = importsOf('lambda/').filter((edge) => edge.split(' -> ')[1].startsWith('lambda/composition/') && !edge.startsWith('lambda/composition/'));
  expect(composers.filter((edge) => !/^lambda\/[a-z-]+\/index\.ts -> /.test(edge))).toEqual([]);
});
