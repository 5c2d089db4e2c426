// The published tarball must synth in a consumer's app with nothing but aws-cdk-lib and constructs:
// no esbuild, no Docker, no TypeScript. Needs `npm run build` first (`npm test` runs it).
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const repoRoot = path.resolve(__dirname, '..', '..');
const packageName: string = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).name;

/** The consumer app: plain CommonJS run by plain node; it refuses to run if esbuild is resolvable. */
const CONSUMER_APP = `
const { App, Stack } = require('aws-cdk-lib');
const { AgentBackend, AgentPipeline } = require('${packageName}');
for (const from of [__dirname, require.resolve('${packageName}'), require.resolve('aws-cdk-lib')]) {
  let reachable = true;
  try { require.resolve('esbuild', { paths: [from] }); } catch { reachable = false; }
  if (reachable) throw new Error('esbuild is resolvable from ' + from);
}
const app = new App({ outdir: process.argv[2] });
new AgentPipeline(new Stack(app, 'Consumer'), 'Pipeline', { environment: 'test', agentBackend: AgentBackend.scripted() });
app.synth();
console.log('synthesized without esbuild');
`;

describe('npm package', () => {
  let workDir: string;
  let packedFiles: string[];
  let installedPackage: string;
  let consumerOutput: string;
  let cloudAssembly: string;

  beforeAll(() => {
    for (const built of ['.jsii', 'lib/index.js', 'assets/webhook/index.js', 'assets/orchestrator/index.js']) {
      if (!fs.existsSync(path.join(repoRoot, built))) {
        throw new Error(`${built} is missing: run \`npm run build\` before this test (\`npm test\` does).`);
      }
    }
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-pipeline-package-'));
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', workDir], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
    );
    packedFiles = packed.files.map((file: { path: string }) => file.path);

    // A fresh consumer app: the unpacked tarball plus links to this repository's aws-cdk-lib and
    // constructs (the peer dependencies) with what they depend on, and nothing else.
    const appDir = path.join(workDir, 'consumer');
    const modules = path.join(appDir, 'node_modules');
    installedPackage = path.join(modules, packageName);
    fs.mkdirSync(installedPackage, { recursive: true });
    execFileSync('tar', ['-xzf', path.join(workDir, packed.filename), '-C', installedPackage, '--strip-components=1']);
    for (const peer of ['aws-cdk-lib', 'constructs']) {
      linkInstalledPackage(peer, modules);
    }
    fs.writeFileSync(path.join(appDir, 'app.js'), CONSUMER_APP);
    cloudAssembly = path.join(workDir, 'cdk.out');
    // --preserve-symlinks keeps module resolution inside the consumer app, so this repository's
    // node_modules (which holds esbuild) is out of reach; PATH holds only node itself.
    consumerOutput = execFileSync(process.execPath, ['--preserve-symlinks', 'app.js', cloudAssembly], {
      cwd: appDir,
      encoding: 'utf8',
      env: { PATH: path.dirname(process.execPath), HOME: workDir },
    });
  });

  afterAll(() => {
    if (workDir) {
      fs.rmSync(workDir, { recursive: true, force: true });
    }
  });

  test('the tarball carries the jsii assembly, compiled code, bundled handlers and docs, and no sources', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        '.jsii',
        'lib/index.js',
        'lib/index.d.ts',
        'lib/agent-pipeline.js',
        'lib/agent-pipeline.d.ts',
        'assets/webhook/index.js',
        'assets/orchestrator/index.js',
        'API.md',
        'README.md',
        'LICENSE',
        'package.json',
      ]),
    );
    expect(packedFiles.filter((file) => /\.ts$/.test(file) && !file.endsWith('.d.ts'))).toEqual([]);
    expect(packedFiles.filter((file) => /^(lambda|test|bin|local|scripts)\//.test(file))).toEqual([]);
  });

  test('a consumer app synthesizes it with plain node and no esbuild reachable', () => {
    expect(consumerOutput).toContain('synthesized without esbuild');
  });

  test('the functions deploy exactly the bundles shipped in the package', () => {
    const template = JSON.parse(fs.readFileSync(path.join(cloudAssembly, 'Consumer.template.json'), 'utf8'));
    const functions = Object.values(template.Resources as Record<string, any>).filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(functions).toHaveLength(2);
    const deployed = functions.map((fn) => {
      const assetHash = String(fn.Properties.Code.S3Key).replace(/\.zip$/, '');
      return fs.readFileSync(path.join(cloudAssembly, `asset.${assetHash}`, 'index.js'), 'utf8');
    });
    const shipped = ['webhook', 'orchestrator'].map((name) => fs.readFileSync(path.join(installedPackage, 'assets', name, 'index.js'), 'utf8'));
    expect(deployed.sort()).toEqual(shipped.sort());
  });
});

/** Links `name` and, like an install would, the dependencies it does not bundle, into `modules`. */
function linkInstalledPackage(name: string, modules: string): void {
  const target = path.join(modules, name);
  if (fs.existsSync(target)) {
    return;
  }
  const source = path.join(repoRoot, 'node_modules', name);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.symlinkSync(source, target, 'dir');
  const manifest = JSON.parse(fs.readFileSync(path.join(source, 'package.json'), 'utf8'));
  const bundled: string[] = manifest.bundleDependencies ?? manifest.bundledDependencies ?? [];
  for (const dependency of Object.keys(manifest.dependencies ?? {}).filter((d) => !bundled.includes(d))) {
    linkInstalledPackage(dependency, modules);
  }
}
