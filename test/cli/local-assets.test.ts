// `npm start` bundles what assets/ lacks or holds older than its sources, and nothing else: checked
// in a scratch repository whose bundle scripts only record that they ran and write what the real
// ones write (the bundle, its metafile).
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleStaleAssets, staleAssets } from '../../local/runtime/local-assets';
import { repoRoot } from '../support/packed-package';

/** A bundle script: writes each output, the metafile naming its inputs, and a line in ran.log. */
const bundleScript = (label: string, bundles: Record<string, { outputs: string[]; inputs: string[] }>) => `
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
const bundles = ${JSON.stringify(bundles)};
for (const [name, { outputs, inputs }] of Object.entries(bundles)) {
  for (const output of outputs) {
    mkdirSync(path.dirname(output), { recursive: true });
    writeFileSync(output, name);
  }
  mkdirSync('.bundles', { recursive: true });
  writeFileSync(path.join('.bundles', name + '.meta.json'), JSON.stringify({ inputs: Object.fromEntries(inputs.map((input) => [input, {}])) }));
}
appendFileSync('ran.log', '${label}\\n');
`;

let root: string;
const file = (relative: string) => path.join(root, relative);
const ran = async () => (await readFile(file('ran.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
const BUNDLED_FILES = ['assets/webhook/index.js', 'assets/console/index.html'];

/** An edit made after the last bundle: the bundles are dated a minute back, whatever the file system's clock resolution. */
async function changeLater(relative: string): Promise<void> {
  const minuteAgo = new Date(Date.now() - 60_000);
  for (const bundled of BUNDLED_FILES) await utimes(file(bundled), minuteAgo, minuteAgo);
  await writeFile(file(relative), `${await readFile(file(relative), 'utf8')}\n`);
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'local-assets-'));
  for (const [relative, content] of Object.entries({
    'lambda/webhook/index.ts': 'export {}',
    'lambda/core/domain/errors.ts': 'export {}',
    'console/src/main.tsx': 'export {}',
    'console/index.html': '<html></html>',
    'scripts/bundle-lambdas.mjs': bundleScript('functions', { webhook: { outputs: ['assets/webhook/index.js'], inputs: ['lambda/webhook/index.ts', 'lambda/core/domain/errors.ts'] } }),
    'scripts/bundle-console.mjs': bundleScript('console', { console: { outputs: ['assets/console/index.html'], inputs: ['console/src/main.tsx'] } }),
  })) {
    await mkdir(path.dirname(file(relative)), { recursive: true });
    await writeFile(file(relative), content);
    // Written before any edit a test makes, and before the bundles changeLater backdates.
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    await utimes(file(relative), twoMinutesAgo, twoMinutesAgo);
  }
});

afterEach(() => rm(root, { recursive: true, force: true }));

test('a fresh clone: both bundles are made, the console after the functions', async () => {
  const report = await bundleStaleAssets(root);
  expect(report.rebuilt).toEqual([
    { name: 'webhook', reason: 'assets/webhook/index.js missing' },
    { name: 'console', reason: 'assets/console/index.html missing' },
  ]);
  expect(await ran()).toEqual(['functions', 'console']);
});

test('up to date: nothing is bundled', async () => {
  await bundleStaleAssets(root);
  expect((await bundleStaleAssets(root)).rebuilt).toEqual([]);
  expect(await ran()).toEqual(['functions', 'console']);
});

test('a changed console source or template bundles the console only', async () => {
  await bundleStaleAssets(root);
  await changeLater('console/src/main.tsx');
  expect((await bundleStaleAssets(root)).rebuilt).toEqual([{ name: 'console', reason: 'console/src/main.tsx changed' }]);
  await changeLater('console/index.html');
  expect((await bundleStaleAssets(root)).rebuilt).toEqual([{ name: 'console', reason: 'console/index.html changed' }]);
  expect(await ran()).toEqual(['functions', 'console', 'console', 'console']);
});

test('a changed source of a function, a deleted metafile or a deleted asset bundles that one again', async () => {
  await bundleStaleAssets(root);
  await changeLater('lambda/core/domain/errors.ts');
  expect((await bundleStaleAssets(root)).rebuilt).toEqual([{ name: 'webhook', reason: 'lambda/core/domain/errors.ts changed' }]);
  expect(await ran()).toEqual(['functions', 'console', 'functions']);

  await rm(file('.bundles/webhook.meta.json'));
  expect((await bundleStaleAssets(root)).rebuilt).toEqual([{ name: 'webhook', reason: '.bundles/webhook.meta.json missing' }]);
  await rm(file('assets/console/index.html'));
  expect((await bundleStaleAssets(root)).rebuilt).toEqual([{ name: 'console', reason: 'assets/console/index.html missing' }]);
});

test('this repository as `npm run build` leaves it: npm start bundles nothing (every file it checks is one the scripts write)', async () => {
  expect(await staleAssets(repoRoot)).toEqual([]);
});

test('a failing bundle script stops npm start with its error', async () => {
  await writeFile(file('scripts/bundle-lambdas.mjs'), "console.error('✘ [ERROR] Could not resolve \"./missing\"'); process.exit(1);");
  await expect(bundleStaleAssets(root)).rejects.toThrow('scripts/bundle-lambdas.mjs failed: ✘ [ERROR] Could not resolve "./missing"');
});
