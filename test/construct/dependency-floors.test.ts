// The floors a consumer installs against: the peer dependencies' lowest versions install together
// (the floor of constructs is the one aws-cdk-lib at its floor asks for), every jsii target
// requires those floors, and the Node.js floor of `engines` is one the whole tree accepts. The
// floors are installed as the `<name>-min` alias dev dependencies, so no test reaches a registry.
// The Go and Java checks need `npm run build` first (`npm test` runs it).
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describeOnNewest } from '../support/newest-aws-cdk-lib';
import { synthPipeline } from '../support/synthesized-pipeline';

const repoRoot = path.resolve(__dirname, '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
const peers: Record<string, string> = manifest.peerDependencies;

function installed(name: string): { version: string; peerDependencies?: Record<string, string>; engines?: { node?: string } } {
  return JSON.parse(fs.readFileSync(path.join(repoRoot, 'node_modules', name, 'package.json'), 'utf8'));
}

/** `^x.y.z` → x.y.z: the peer ranges are all caret ranges, whose floor is the version they name. */
function caretFloor(range: string): string {
  const match = /^\^(\d+\.\d+\.\d+)$/.exec(range);
  if (!match) throw new Error(`${range} is not a caret range: the floors below read only those`);
  return match[1];
}

function compareVersions(a: string, b: string): number {
  const [left, right] = [a, b].map((version) => version.split('.').map(Number));
  for (let i = 0; i < 3; i++) {
    if ((left[i] ?? 0) !== (right[i] ?? 0)) return (left[i] ?? 0) - (right[i] ?? 0);
  }
  return 0;
}

/** Whether `version` is in the caret range `range` (same major, not below its floor). */
function inCaretRange(version: string, range: string): boolean {
  const floor = caretFloor(range);
  return version.split('.')[0] === floor.split('.')[0] && compareVersions(version, floor) >= 0;
}

describe('peer dependency floors', () => {
  test.each(Object.keys(peers))('the floor of %s is installed as its -min alias, the release the floor tests run on', (peer) => {
    expect(installed(`${peer}-min`).version).toBe(caretFloor(peers[peer]));
  });

  test('aws-cdk-lib at its floor asks for exactly the constructs range the package asks for, so the two floors install together', () => {
    expect(installed('aws-cdk-lib-min').peerDependencies).toEqual({ constructs: peers.constructs });
  });

  test('the dev dependencies (the pinned releases most tests run on) are inside the peer ranges and agree with each other', () => {
    expect(inCaretRange(installed('aws-cdk-lib').version, peers['aws-cdk-lib'])).toBe(true);
    expect(inCaretRange(installed('constructs').version, peers.constructs)).toBe(true);
    expect(inCaretRange(installed('constructs').version, installed('aws-cdk-lib').peerDependencies!.constructs)).toBe(true);
  });
});

describeOnNewest('the newest aws-cdk-lib', (release) => {
  test('is inside the peer range, and the constructs it installs with is inside the constructs range', () => {
    expect(inCaretRange(release.version, peers['aws-cdk-lib'])).toBe(true);
    const constructsVersion = JSON.parse(fs.readFileSync(path.join(release.nodeModules, 'constructs', 'package.json'), 'utf8')).version;
    expect(inCaretRange(constructsVersion, peers.constructs)).toBe(true);
  });
});

describe('Node.js floor', () => {
  const nodeFloor = /^>= (\d+)$/.exec(manifest.engines.node)?.[1];

  test('engines names one major, no lower than any installed package asks for', () => {
    expect(nodeFloor).toBeDefined();
    const lock = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8'));
    // Only plain lower bounds (`>=22`, `>= 20.16.0`): ranges with `||` or `^` name older majors too.
    const tooNew = Object.entries(lock.packages as Record<string, { engines?: { node?: string } }>)
      .map(([name, entry]) => [name, /^>=\s*(\d+)(?:\.\d+){0,2}$/.exec(entry.engines?.node ?? '')?.[1]] as const)
      .filter(([, major]) => major !== undefined && Number(major) > Number(nodeFloor));
    expect(tooNew).toEqual([]);
  });

  test('CI runs the suite on the functions\' Node.js major, which is within engines', () => {
    const ciMajor = /^FUNCTIONS_NODE_MAJOR=(\d+)$/m.exec(fs.readFileSync(path.join(repoRoot, '.ci', 'run'), 'utf8'))?.[1];
    const runtimes = new Set(Object.values(synthPipeline().template.findResources('AWS::Lambda::Function')).map((fn) => fn.Properties.Runtime));
    expect([...runtimes]).toEqual([`nodejs${ciMajor}.x`]);
    expect(Number(ciMajor)).toBeGreaterThanOrEqual(Number(nodeFloor));
  });
});

describe('jsii targets', () => {
  let outdir: string;

  beforeAll(() => {
    if (!fs.existsSync(path.join(repoRoot, '.jsii'))) {
      throw new Error('.jsii is missing: run `npm run build` before this test (`npm test` does).');
    }
    outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-pipeline-floors-'));
  });

  afterAll(() => {
    if (outdir) {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  });

  test('the Go module requires the peer floors, not the newest releases it was built beside', () => {
    execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'package-targets.mjs'), '--targets', 'go', '--outdir', outdir, '--json'], { cwd: repoRoot, encoding: 'utf8' });
    const goTarget = manifest.jsii.targets.go;
    const goMod = fs.readFileSync(path.join(outdir, 'code', 'go', goTarget.packageName, 'go.mod'), 'utf8');
    expect(goMod).toContain(`\tgithub.com/aws/aws-cdk-go/awscdk/v2 v${caretFloor(peers['aws-cdk-lib'])}\n`);
    expect(goMod).toContain(`\tgithub.com/aws/constructs-go/constructs/v10 v${caretFloor(peers.constructs)}\n`);
  }, 180_000);

  test('the Maven package asks for the peer ranges', () => {
    execFileSync(path.join(repoRoot, 'node_modules', '.bin', 'jsii-pacmak'), ['--code-only', '--targets', 'java', '--outdir', outdir], { cwd: repoRoot, encoding: 'utf8', stdio: 'pipe' });
    const pom = fs.readFileSync(path.join(outdir, 'java', 'pom.xml'), 'utf8');
    const nextMajor = (range: string) => `${Number(caretFloor(range).split('.')[0]) + 1}.0.0`;
    expect(pom).toMatch(new RegExp(`<artifactId>aws-cdk-lib</artifactId>\\s*<version>\\[${caretFloor(peers['aws-cdk-lib'])},${nextMajor(peers['aws-cdk-lib'])}\\)</version>`));
    expect(pom).toMatch(new RegExp(`<artifactId>constructs</artifactId>\\s*<version>\\[${caretFloor(peers.constructs)},${nextMajor(peers.constructs)}\\)</version>`));
  }, 180_000);
});
