// Construct Hub shows the README in five languages, translated by jsii-rosetta from its TypeScript
// snippets: every `ts` snippet must compile inside rosetta/default.ts-fixture, or the Python, Java,
// C# and Go versions are guesses. Reads the snippets from the jsii assembly (`npm run build` first).
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const repoRoot = path.resolve(__dirname, '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));

/** The fenced TypeScript blocks of the README, as rosetta counts them. */
function typeScriptBlocks(markdown: string): number {
  return (markdown.match(/^```(ts|typescript)\b/gm) ?? []).length;
}

test('every TypeScript snippet of the README compiles with the rosetta fixture', () => {
  const assembly = JSON.parse(fs.readFileSync(path.join(repoRoot, '.jsii'), 'utf8'));
  const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  // The snippets are read from the assembly: a README edited after the last build is not checked.
  expect({ readmeInAssemblyIsCurrent: assembly.readme?.markdown === readme }).toEqual({ readmeInAssemblyIsCurrent: true });

  // The compile directory: the package itself and its peer dependencies, as a consumer has them.
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-snippets-'));
  try {
    const modules = path.join(workDir, 'node_modules');
    fs.mkdirSync(path.join(modules, '@types'), { recursive: true });
    fs.symlinkSync(repoRoot, path.join(modules, manifest.name), 'dir');
    for (const dependency of ['aws-cdk-lib', 'constructs', '@types/node']) {
      fs.symlinkSync(path.join(repoRoot, 'node_modules', dependency), path.join(modules, dependency), 'dir');
    }
    const tablet = path.join(workDir, 'tablet.json');
    execFileSync(
      process.execPath,
      [path.join(repoRoot, 'node_modules', 'jsii-rosetta', 'bin', 'jsii-rosetta'), 'extract', '--compile', '--fail', '--directory', workDir, '--cache-to', tablet, '.jsii'],
      { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION: '20' } },
    );
    const snippets = Object.values(JSON.parse(fs.readFileSync(tablet, 'utf8')).snippets) as { didCompile?: boolean; location: { api: { api: string } } }[];
    const fromReadme = snippets.filter((snippet) => snippet.location.api.api === 'moduleReadme');
    expect(fromReadme).toHaveLength(typeScriptBlocks(readme));
    expect(fromReadme.filter((snippet) => snippet.didCompile !== true)).toEqual([]);
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}, 600_000);
