// People paste the TypeScript blocks of the README and of the guides in docs/ into their apps, and
// Construct Hub shows the README's in five languages, translated by jsii-rosetta. So every ```ts
// block is a whole file: it compiles on its own, with the imports it shows, in a fresh app holding
// the packed package and its peer dependencies; `jsii-rosetta extract --strict` passes against the
// packed package (README and `@example`s); and every block that builds an App synthesizes without
// AWS credentials (no lookups), without a warning and without an AWS Solutions finding, on the
// aws-cdk-lib this repository pins and on the newest the npm registry serves (skipped, saying so,
// when it cannot be reached). Needs `npm run build` first.
import * as fs from 'fs';
import { createRequire } from 'module';
import * as os from 'os';
import * as path from 'path';
import { execFileSync } from 'child_process';
import * as ts from 'typescript';
import { describeOnNewest } from '../support/newest-aws-cdk-lib';
import { installPackedPackage, packPackage, repoRoot } from '../support/packed-package';
import { documentedBlocks, typeScriptBlocks } from '../support/readme-blocks';
import { NO_PROBLEMS, type SynthesisProblems, synthesisProblems } from '../support/synthesis-problems';

const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
const snippets = typeScriptBlocks(readme);
const documented = documentedBlocks();
const apps = documented.filter(({ source }) => /\bnew App\(/.test(source)).map((snippet) => ({ ...snippet, label: `${snippet.file} line ${snippet.line}` }));
let workDir: string;
let tarball: string;
let appDir: string;
let installedPackage: string;

beforeAll(() => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-snippets-'));
  appDir = path.join(workDir, 'app');
  tarball = packPackage(workDir).tarball;
  installedPackage = installPackedPackage(tarball, appDir, { extraDependencies: ['@types/node', 'cdk-nag'] });
}, 120_000);

afterAll(() => {
  if (workDir) {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
});

test('the README the package carries is the one read here, and it has TypeScript blocks', () => {
  expect(fs.readFileSync(path.join(installedPackage, 'README.md'), 'utf8')).toBe(readme);
  const assembly = JSON.parse(fs.readFileSync(path.join(installedPackage, '.jsii'), 'utf8'));
  // A README edited after the last build is not the one in the assembly Construct Hub translates.
  expect({ readmeInAssemblyIsCurrent: assembly.readme?.markdown === readme }).toEqual({ readmeInAssemblyIsCurrent: true });
  expect(snippets.length).toBeGreaterThanOrEqual(3);
  expect(documented.length).toBeGreaterThan(snippets.length);
});

test('every TypeScript block of the README and the guides compiles on its own in a fresh app, with the imports it shows', () => {
  const files = documented.map(({ file, line }) => path.join(appDir, `${file.replace(/\W/g, '-')}-line-${line}.ts`));
  documented.forEach(({ source }, i) => fs.writeFileSync(files[i], source));
  // What `cdk init app --language typescript` sets, each block a module of its own.
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts'],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    moduleDetection: ts.ModuleDetectionKind.Force,
    typeRoots: [path.join(appDir, 'node_modules', '@types')],
  });
  const errors = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start) : undefined;
    const file = diagnostic.file ? path.basename(diagnostic.file.fileName) : '';
    return `${file}${where ? `:${where.line + 1}` : ''} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
  expect(errors).toEqual([]);
}, 300_000);

test('jsii-rosetta extract --strict passes against the packed package: every README block and @example compiles', () => {
  const tablet = path.join(workDir, 'tablet.json');
  execFileSync(
    process.execPath,
    [path.join(repoRoot, 'node_modules', 'jsii-rosetta', 'bin', 'jsii-rosetta'), 'extract', '--strict', '--directory', appDir, '--cache-to', tablet, path.join(installedPackage, '.jsii')],
    { cwd: appDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION: '20' } },
  );
  const translated = Object.values(JSON.parse(fs.readFileSync(tablet, 'utf8')).snippets) as { didCompile?: boolean; location: { api: { api: string } } }[];
  expect(translated.filter((snippet) => snippet.location.api.api === 'moduleReadme')).toHaveLength(snippets.length);
  expect(translated.filter((snippet) => snippet.location.api.api !== 'moduleReadme').length).toBeGreaterThan(0);
  expect(translated.filter((snippet) => snippet.didCompile !== true)).toEqual([]);
}, 600_000);

describe.each(apps)('the README app at $label', ({ source }) => {
  test('synthesizes with no lookup, no warning and no AWS Solutions finding', () => {
    expect(synthesizeSnippet(source, appDir)).toEqual(NO_PROBLEMS);
  });
});

describeOnNewest('the README apps on the newest aws-cdk-lib', (release) => {
  let newestAppDir: string;
  beforeAll(() => {
    newestAppDir = path.join(workDir, 'app-newest');
    installPackedPackage(tarball, newestAppDir, { nodeModules: release.nodeModules, extraDependencies: ['cdk-nag'] });
  });

  test.each(apps)('the app at $label synthesizes with no lookup, no warning and no AWS Solutions finding', ({ source }) => {
    expect(synthesizeSnippet(source, newestAppDir)).toEqual(NO_PROBLEMS);
  });
});

/**
 * Runs the block as the entry point of the app in `app` (the packed package and the aws-cdk-lib and
 * cdk-nag installed there, loaded by Node as the app would), synthesizes the App it creates and runs
 * cdk-nag's AWS Solutions checks over it.
 */
function synthesizeSnippet(source: string, app: string): SynthesisProblems {
  const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } });
  const appRequire = createRequire(path.join(app, 'app.js'));
  const cdk = appRequire('aws-cdk-lib');
  const { AwsSolutionsChecks } = appRequire('cdk-nag');
  const apps: any[] = [];
  class CapturedApp extends cdk.App {
    constructor(props: object = {}) {
      super({ ...props, outdir: fs.mkdtempSync(path.join(workDir, 'cdk.out-')) });
      apps.push(this);
    }
  }
  const cdkWithCapturedApp = new Proxy(cdk, { get: (target, name) => (name === 'App' ? CapturedApp : target[name]) });
  const snippetRequire = (id: string) => (id === 'aws-cdk-lib' ? cdkWithCapturedApp : appRequire(id));
  new Function('require', 'exports', outputText)(snippetRequire, {});
  expect(apps).toHaveLength(1);
  return synthesisProblems(apps[0], AwsSolutionsChecks);
}
