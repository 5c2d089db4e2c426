// The published tarball must synth in a consumer's app with nothing but aws-cdk-lib and constructs:
// no esbuild, no Docker, no TypeScript; with the aws-cdk-lib and constructs this repository pins,
// with the oldest the peer dependencies allow (installed as the `aws-cdk-lib-min` and
// `constructs-min` aliases) and with the newest the npm registry serves today
// (installed by `npm test` before jest, scripts/install-newest-aws-cdk-lib.mjs; skipped, saying so, when
// the registry could not be reached).
// Needs `npm run build` first (`npm test` runs it).
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { SETTINGS_DOCUMENT_FILE } from '../../lib/contract';
import { stagedFunction, testPlan } from '../support/deployment-settings';
import { describeOnNewest } from '../support/newest-aws-cdk-lib';
import { installPackedPackage, packageManifest, packageName, packPackage, repoRoot } from '../support/packed-package';

const manifest = packageManifest;
/** Where a consumer's aws-cdk-lib and constructs come from (`installPackedPackage`'s options). */
type PeerReleases = Parameters<typeof installPackedPackage>[2];
/** The aws-cdk-lib and constructs versions of this repository a consumer may have: the dev dependencies and the peer floors. */
const CDK_RELEASES: readonly { readonly label: string; readonly name: string; readonly peers: PeerReleases }[] = [
  { label: 'the pinned aws-cdk-lib', name: 'pinned', peers: {} },
  { label: 'the lowest aws-cdk-lib and constructs the peer dependencies allow', name: 'floor', peers: { cdkLib: 'aws-cdk-lib-min', constructs: 'constructs-min' } },
];

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
new AgentPipeline(new Stack(app, 'Consumer'), 'Pipeline', {
  environment: 'test',
  agentBackend: AgentBackend.scripted(),
  orchestratorMaxConcurrency: 5,
});
app.synth();
console.log('synthesized without esbuild by aws-cdk-lib ' + require('aws-cdk-lib/package.json').version + ' with constructs ' + require('constructs/package.json').version);
`;

let workDir: string;
let tarball: string;
let packedFiles: string[];

beforeAll(() => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-pipeline-package-'));
  ({ tarball, files: packedFiles } = packPackage(workDir));
});

afterAll(() => {
  if (workDir) {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
});

describe('npm package', () => {
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
        'assets/operator/index.js',
        'assets/shared/tracer.js',
        'assets/console/index.html',
        'assets/cli/index.js',
        'API.md',
        'README.md',
        'CHANGELOG.md',
        'docs/RELIABILITY.md',
        'docs/OPERATOR-API.md',
        'docs/EVALUATION.md',
        'evaluation/scenario.schema.json',
        'evaluation/scenarios/asks-for-a-person.json',
        'evaluation/scenarios/records-registration.json',
        'evaluation/scenarios/tap-and-photo.json',
        'LICENSE',
        'package.json',
      ]),
    );
    expect(packedFiles.filter((file) => /\.ts$/.test(file) && !file.endsWith('.d.ts'))).toEqual([]);
    expect(packedFiles.filter((file) => /^(lambda|test|bin|local|scripts|dist)\//.test(file))).toEqual([]);
  });

  test('ships what the functions share once: one tracer, one console, no two bundled files alike', () => {
    const bundled = packedFiles.filter((file) => file.startsWith('assets/'));
    expect(bundled.filter((file) => path.basename(file) === 'tracer.js')).toEqual(['assets/shared/tracer.js']);
    expect(bundled.filter((file) => file.endsWith('/index.html'))).toEqual(['assets/console/index.html']);
    const byContent = new Map<string, string[]>();
    for (const file of bundled) {
      const digest = createHash('sha256').update(fs.readFileSync(path.join(repoRoot, file))).digest('hex');
      byContent.set(digest, [...(byContent.get(digest) ?? []), file]);
    }
    expect([...byContent.values()].filter((files) => files.length > 1)).toEqual([]);
  });

  test('the asset of the operator function serves the one console the package ships', () => {
    const operator = stagedFunction('operator', testPlan('packaging', 'http://127.0.0.1:9/turns.fifo', { operatorPlane: { adminPhoneNumbers: ['5511999990000'], consoleUrl: 'http://127.0.0.1:9', evaluatorFunctionName: 'packaging-evaluator' } })).folder;
    // The handler with the parts it loads (its own and the shared ones, named by their content), its media file, the scenario format's checker, the tracer.
    const bundleFiles = [...fs.readdirSync(path.join(repoRoot, 'assets', 'operator')), ...fs.readdirSync(path.join(repoRoot, 'assets', 'shared'))].filter((file) => file !== 'console');
    expect(bundleFiles.filter((file) => !/^part-[A-Z0-9]+\.js$/.test(file)).sort()).toEqual(['index.js', 'media.js', 'scenario-format.js', 'tracer.js']);
    expect(fs.readdirSync(operator).sort()).toEqual(['console', SETTINGS_DOCUMENT_FILE, ...bundleFiles].sort());
    expect(fs.readFileSync(path.join(operator, 'console', 'index.html'))).toEqual(fs.readFileSync(path.join(repoRoot, 'assets', 'console', 'index.html')));
    // Every hashed file, each language's words among them.
    const builtAssets = fs.readdirSync(path.join(repoRoot, 'assets', 'console', 'assets')).sort();
    expect(builtAssets).toEqual(expect.arrayContaining([expect.stringMatching(/^pt-\w+\.js$/), expect.stringMatching(/^en-\w+\.js$/), expect.stringMatching(/^es-\w+\.js$/)]));
    expect(fs.readdirSync(path.join(operator, 'console', 'assets')).sort()).toEqual(builtAssets);
  });

  test('the packed manifest carries what registries and Construct Hub show', () => {
    const packedManifest = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }));
    expect(packedManifest).toMatchObject({
      license: 'Apache-2.0',
      homepage: expect.stringMatching(/^https:\/\//),
      bugs: { url: expect.stringMatching(/^https:\/\/.*\/issues$/) },
      repository: { url: expect.stringMatching(/^https:\/\/.*\.git$/) },
      keywords: expect.arrayContaining(['cdk', 'awscdk']),
      jsii: { targets: { python: expect.any(Object), java: expect.any(Object), dotnet: expect.any(Object), go: expect.any(Object) } },
    });
  });

  test('every compiled file in the tarball comes from a current source (no stale output of a moved file)', () => {
    const compiled = packedFiles.filter((file) => /^lib\/.*\.js$/.test(file));
    expect(compiled.length).toBeGreaterThan(0);
    expect(compiled.filter((file) => !fs.existsSync(path.join(repoRoot, file.replace(/\.js$/, '.ts'))))).toEqual([]);
  });

  test('no bundle and no packed file carries a development-only dependency (the AGPL policy simulator of the permission test)', () => {
    const devOnly = ['@cloud-copilot/'];
    const metafiles = fs.readdirSync(path.join(repoRoot, '.bundles')).filter((file) => file.endsWith('.meta.json'));
    expect(metafiles).toEqual(expect.arrayContaining(['webhook.meta.json', 'orchestrator.meta.json', 'operator.meta.json', 'cli.meta.json', 'console.meta.json']));
    const bundled = metafiles.flatMap((file) => Object.keys(JSON.parse(fs.readFileSync(path.join(repoRoot, '.bundles', file), 'utf8')).inputs as Record<string, unknown>));
    expect(bundled.length).toBeGreaterThan(100);
    expect(bundled.filter((input) => devOnly.some((name) => input.includes(`node_modules/${name}`)))).toEqual([]);
    expect(packedFiles.filter((file) => devOnly.some((name) => file.includes(name)))).toEqual([]);
    expect(Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.bundleDependencies }).filter((name) => devOnly.some((prefix) => name.startsWith(prefix)))).toEqual([]);
  });

  test('the construct sources type-check against the lowest supported aws-cdk-lib and constructs (no prop they lack would be silently ignored)', () => {
    const minimumLib = path.join(repoRoot, 'node_modules', 'aws-cdk-lib-min');
    const minimumConstructs = path.join(repoRoot, 'node_modules', 'constructs-min');
    const tsconfig = path.join(workDir, 'tsconfig.min-cdk.json');
    fs.writeFileSync(
      tsconfig,
      JSON.stringify({
        extends: path.join(repoRoot, 'tsconfig.json'),
        compilerOptions: {
          noEmit: true,
          typeRoots: [path.join(repoRoot, 'node_modules', '@types')],
          paths: { 'aws-cdk-lib': [minimumLib], 'aws-cdk-lib/*': [`${minimumLib}/*`], constructs: [minimumConstructs] },
        },
        include: [path.join(repoRoot, 'lib', '**', '*.ts')],
        exclude: [path.join(repoRoot, 'lib', '**', '*.d.ts')],
      }),
    );
    const typescript = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const files = execFileSync(process.execPath, [typescript, '-p', tsconfig, '--listFiles'], { encoding: 'utf8' });
    expect(files).toContain(`${minimumLib}/aws-lambda/lib/runtime.d.ts`);
    expect(files).toContain(`${minimumConstructs}/lib/construct.d.ts`);
  }, 120_000);
});

describe.each(CDK_RELEASES)('a consumer app with $label', ({ name, peers }) => consumerAppTests(name, peers));
describeOnNewest('a consumer app with the newest aws-cdk-lib', (release) => consumerAppTests('newest', { nodeModules: release.nodeModules }));

function consumerAppTests(name: string, peers: PeerReleases): void {
  let appDir: string;
  let installedPackage: string;
  let consumerOutput: string;
  let cloudAssembly: string;
  let template: { Resources: Record<string, any> };

  beforeAll(() => {
    // A fresh consumer app: the unpacked tarball plus links to this repository's aws-cdk-lib and
    // constructs releases under test (the peer dependencies) with what they depend on.
    appDir = path.join(workDir, `consumer-${name}`);
    installedPackage = installPackedPackage(tarball, appDir, peers);
    fs.writeFileSync(path.join(appDir, 'app.js'), CONSUMER_APP);
    cloudAssembly = path.join(appDir, 'cdk.out');
    // --preserve-symlinks keeps module resolution inside the consumer app, so this repository's
    // node_modules (which holds esbuild) is out of reach; PATH holds only node itself.
    consumerOutput = execFileSync(process.execPath, ['--preserve-symlinks', 'app.js', cloudAssembly], {
      cwd: appDir,
      encoding: 'utf8',
      env: { PATH: path.dirname(process.execPath), HOME: workDir },
    });
    template = JSON.parse(fs.readFileSync(path.join(cloudAssembly, 'Consumer.template.json'), 'utf8'));
  });

  test('the operator tool (package.json bin) runs with plain node and nothing installed beside it', () => {
    const packedManifest = JSON.parse(fs.readFileSync(path.join(installedPackage, 'package.json'), 'utf8'));
    const tool = path.join(installedPackage, packedManifest.bin[packageName]);
    expect(fs.readFileSync(tool, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    // From an empty folder with PATH holding only node: no tsx, TypeScript or dev dependency to lean on.
    const isolated = fs.mkdtempSync(path.join(workDir, 'tool-'));
    fs.copyFileSync(tool, path.join(isolated, 'tool.js'));
    const env = { PATH: path.dirname(process.execPath), HOME: workDir };
    const help = execFileSync(process.execPath, ['tool.js', 'redrive', '--help'], { cwd: isolated, encoding: 'utf8', env });
    expect(help).toContain('npx cdk-whatsapp-agent-pipeline redrive --stack <stack name>');
    const list = execFileSync(process.execPath, ['tool.js', '--help'], { cwd: isolated, encoding: 'utf8', env });
    expect(list).toMatch(/^  redrive +/m);
  });

  test('synthesizes the tarball with plain node, no esbuild reachable, on that aws-cdk-lib', () => {
    const versionOf = (peer: string) => JSON.parse(fs.readFileSync(path.join(appDir, 'node_modules', peer, 'package.json'), 'utf8')).version;
    expect(consumerOutput).toContain(`synthesized without esbuild by aws-cdk-lib ${versionOf('aws-cdk-lib')} with constructs ${versionOf('constructs')}`);
  });

  test('the functions deploy exactly the bundles shipped in the package, each with the shared tracer beside its handler and its settings', () => {
    const functions = resourcesOfType(template, 'AWS::Lambda::Function');
    expect(functions).toHaveLength(3);
    // Each function's asset is its bundle's folder plus the shared files and its settings document, nothing else.
    const folderContents = (...folders: string[]) =>
      JSON.stringify(
        folders
          .flatMap((folder) => fs.readdirSync(folder).filter((file) => file !== SETTINGS_DOCUMENT_FILE).map((file) => [file, fs.readFileSync(path.join(folder, file), 'utf8')]))
          .sort(([a], [b]) => a.localeCompare(b)),
      );
    const assets = functions.map((fn) => path.join(cloudAssembly, `asset.${String(fn.Properties.Code.S3Key).replace(/\.zip$/, '')}`));
    for (const asset of assets) expect(JSON.parse(fs.readFileSync(path.join(asset, SETTINGS_DOCUMENT_FILE), 'utf8'))).toMatchObject({ keyLayout: 'sharded', crmSyncEnabled: false });
    const deployed = assets.map((asset) => folderContents(asset));
    const shared = path.join(installedPackage, 'assets', 'shared');
    const shipped = ['webhook', 'orchestrator', 'idle-sweeper'].map((name) => folderContents(path.join(installedPackage, 'assets', name), shared));
    expect(deployed.sort()).toEqual(shipped.sort());
    expect(shipped.every((contents) => contents.startsWith('[["index.js",') && contents.includes('],["tracer.js",'))).toBe(true);
  });

  test('every setting the construct relies on reaches the template', () => {
    for (const fn of resourcesOfType(template, 'AWS::Lambda::Function')) {
      expect(fn.Properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], LoggingConfig: { LogFormat: 'JSON' } });
    }
    const [table] = resourcesOfType(template, 'AWS::DynamoDB::Table');
    expect(table.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    const [eventSource] = resourcesOfType(template, 'AWS::Lambda::EventSourceMapping');
    expect(eventSource.Properties.ScalingConfig).toEqual({ MaximumConcurrency: 5 });
    // The cdk-nag 2 suppressions ride on the resources whatever the aws-cdk-lib release.
    const [secret] = resourcesOfType(template, 'AWS::SecretsManager::Secret');
    expect(secret.Metadata.cdk_nag.rules_to_suppress).toEqual(
      [
        'AwsSolutions-SMG4',
        'HIPAA.Security-SecretsManagerRotationEnabled',
        'NIST.800.53.R5-SecretsManagerRotationEnabled',
        // The consumer app gives no encryptionKey: the secret keeps Secrets Manager's key.
        'HIPAA.Security-SecretsManagerUsingKMSKey',
        'NIST.800.53.R5-SecretsManagerUsingKMSKey',
        'PCI.DSS.321-SecretsManagerUsingKMSKey',
      ].map((id) => expect.objectContaining({ id })),
    );
  });
}

function resourcesOfType(template: { Resources: Record<string, any> }, type: string): any[] {
  return Object.values(template.Resources).filter((resource) => resource.Type === type);
}
