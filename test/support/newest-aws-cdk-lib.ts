// The newest aws-cdk-lib a consumer's `npm install` gets today: asked of the npm registry when the
// tests load (`npm view`, with a timeout; the answer kept for an hour), installed once per release
// with cdk-nag 3 and 2 (as this repository pins them) into a cache folder outside the project,
// `${XDG_CACHE_HOME:-~/.cache}/cdk-whatsapp-agent-pipeline/aws-cdk-lib-<version>/`. When the registry
// cannot be reached, the tests that need it are skipped and say why; nothing else depends on it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { repoRoot } from './packed-package';

/** An aws-cdk-lib release installed with what its consumers run beside it. */
export interface InstalledCdkRelease {
  readonly version: string;
  /** Its node_modules: aws-cdk-lib, constructs (its peer), cdk-nag and cdk-nag-v2. */
  readonly nodeModules: string;
}

export type NewestCdkRelease = InstalledCdkRelease | { readonly unavailable: string };

const CACHE = path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'cdk-whatsapp-agent-pipeline');
const VIEW_TIMEOUT_MS = 15_000;
const INSTALL_TIMEOUT_MS = 10 * 60_000;
/** How long the registry's answer is taken as today's. */
const ANSWER_KEPT_MS = 60 * 60_000;

function installedVersion(name: string): string {
  return JSON.parse(readFileSync(path.join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/** `npm view aws-cdk-lib version`, or the answer of the last hour. */
function newestVersion(): string {
  const answer = path.join(CACHE, 'aws-cdk-lib-newest.json');
  if (existsSync(answer) && Date.now() - statSync(answer).mtimeMs < ANSWER_KEPT_MS) return JSON.parse(readFileSync(answer, 'utf8')).version;
  // One try, so an unreachable registry costs seconds, not npm's minutes of retries.
  const version = JSON.parse(
    execFileSync('npm', ['view', 'aws-cdk-lib', 'version', '--json', '--fetch-retries=0', `--fetch-timeout=${VIEW_TIMEOUT_MS}`], { encoding: 'utf8', timeout: VIEW_TIMEOUT_MS + 5_000, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  if (typeof version !== 'string' || !/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`npm view answered ${JSON.stringify(version)}`);
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(answer, JSON.stringify({ version }));
  return version;
}

/** Installs `version` once (into a folder of its own, moved into place when complete). */
function install(version: string): InstalledCdkRelease {
  const folder = path.join(CACHE, `aws-cdk-lib-${version}`);
  const nodeModules = path.join(folder, 'node_modules');
  if (existsSync(path.join(nodeModules, 'aws-cdk-lib', 'package.json'))) return { version, nodeModules };
  mkdirSync(CACHE, { recursive: true });
  const staging = mkdtempSync(`${folder}-`);
  try {
    const dependencies = {
      'aws-cdk-lib': version,
      'cdk-nag': installedVersion('cdk-nag'),
      'cdk-nag-v2': `npm:cdk-nag@${installedVersion('cdk-nag-v2')}`,
    };
    writeFileSync(path.join(staging, 'package.json'), JSON.stringify({ name: 'newest-aws-cdk-lib', private: true, dependencies }));
    // constructs comes as aws-cdk-lib's peer dependency, at the release it asks for.
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: staging, timeout: INSTALL_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] });
    renameSync(staging, folder);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another test file installed the same release meanwhile.
    if (!existsSync(path.join(nodeModules, 'aws-cdk-lib', 'package.json'))) throw error;
  }
  return { version, nodeModules };
}

function resolveNewest(): NewestCdkRelease {
  try {
    return install(newestVersion());
  } catch (error) {
    const why = String((error as { stderr?: unknown }).stderr ?? '').trim().split('\n')[0] || (error as Error).message;
    const unavailable = `the npm registry could not be reached to find or install the newest aws-cdk-lib (${why})`;
    console.warn(`Tests on the newest aws-cdk-lib are skipped: ${unavailable}`);
    return { unavailable };
  }
}

/** Resolved once per test file that loads this module. */
export const NEWEST_AWS_CDK_LIB: NewestCdkRelease = resolveNewest();

/** `describe` when the newest release is installed, else `describe.skip` (the title says why). */
export function describeOnNewest(title: string, body: (release: InstalledCdkRelease) => void): void {
  if ('unavailable' in NEWEST_AWS_CDK_LIB) {
    describe.skip(`${title} — skipped: ${NEWEST_AWS_CDK_LIB.unavailable}`, () => test('needs the newest aws-cdk-lib', () => undefined));
    return;
  }
  const release = NEWEST_AWS_CDK_LIB;
  describe(`${title} (aws-cdk-lib ${release.version}, the newest on the registry)`, () => body(release));
}
