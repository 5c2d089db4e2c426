// Part of `npm test`, before jest: installs the newest aws-cdk-lib the npm registry serves today, with
// cdk-nag 3 and 2 at the releases this repository pins, into a cache folder outside the project
// (`${XDG_CACHE_HOME:-~/.cache}/cdk-whatsapp-agent-pipeline/aws-cdk-lib-<version>/`), and records which
// release that is in `aws-cdk-lib-newest.json` beside it. The suite's tests on the newest release read
// that record (test/support/newest-aws-cdk-lib.ts), so jest itself makes no request beyond this
// machine. An unreachable registry is recorded, not fatal: those tests are skipped and say why.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'cdk-whatsapp-agent-pipeline');
const RECORD = path.join(CACHE, 'aws-cdk-lib-newest.json');
const VIEW_TIMEOUT_MS = 15_000;
const INSTALL_TIMEOUT_MS = 10 * 60_000;
/** How long the registry's answer is taken as today's. */
const ANSWER_KEPT_MS = 60 * 60_000;

function installedVersion(name) {
  return JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
}

function isInstalled(nodeModules) {
  return existsSync(path.join(nodeModules, 'aws-cdk-lib', 'package.json'));
}

/** The last hour's record, when it names a release still installed. */
function recentRecord() {
  if (!existsSync(RECORD) || Date.now() - statSync(RECORD).mtimeMs >= ANSWER_KEPT_MS) return undefined;
  const record = JSON.parse(readFileSync(RECORD, 'utf8'));
  return record.nodeModules !== undefined && isInstalled(record.nodeModules) ? record : undefined;
}

/** `npm view aws-cdk-lib version`, with one try, so an unreachable registry costs seconds, not npm's minutes of retries. */
function newestVersion() {
  const version = JSON.parse(
    execFileSync('npm', ['view', 'aws-cdk-lib', 'version', '--json', '--fetch-retries=0', `--fetch-timeout=${VIEW_TIMEOUT_MS}`], { encoding: 'utf8', timeout: VIEW_TIMEOUT_MS + 5_000, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  if (typeof version !== 'string' || !/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`npm view answered ${JSON.stringify(version)}`);
  return version;
}

/** Installs `version` once, into a folder of its own moved into place when complete. */
function install(version) {
  const folder = path.join(CACHE, `aws-cdk-lib-${version}`);
  const nodeModules = path.join(folder, 'node_modules');
  if (isInstalled(nodeModules)) return { version, nodeModules };
  const staging = mkdtempSync(`${folder}-`);
  try {
    const dependencies = { 'aws-cdk-lib': version, 'cdk-nag': installedVersion('cdk-nag'), 'cdk-nag-v2': `npm:cdk-nag@${installedVersion('cdk-nag-v2')}` };
    writeFileSync(path.join(staging, 'package.json'), JSON.stringify({ name: 'newest-aws-cdk-lib', private: true, dependencies }));
    // constructs comes as aws-cdk-lib's peer dependency, at the release it asks for.
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: staging, timeout: INSTALL_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] });
    renameSync(staging, folder);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { version, nodeModules };
}

mkdirSync(CACHE, { recursive: true });
let record = recentRecord();
if (record === undefined) {
  try {
    record = install(newestVersion());
  } catch (error) {
    const why = String(error.stderr ?? '').trim().split('\n')[0] || error.message;
    record = { unavailable: `the npm registry could not be reached to find or install the newest aws-cdk-lib (${why})` };
  }
  writeFileSync(RECORD, JSON.stringify(record));
}
console.log(record.unavailable === undefined ? `Newest aws-cdk-lib for the consumer tests: ${record.version}` : `Tests on the newest aws-cdk-lib will be skipped: ${record.unavailable}`);
