// The newest aws-cdk-lib a consumer's `npm install` gets today, as `npm test` installed it before jest
// started (scripts/install-newest-aws-cdk-lib.mjs, which asks the npm registry): the tests read its
// record and make no request beyond this machine. Without a record, or when the registry could not be
// reached, the tests that need it are skipped and say why; nothing else depends on it.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** An aws-cdk-lib release installed with what its consumers run beside it. */
export interface InstalledCdkRelease {
  readonly version: string;
  /** Its node_modules: aws-cdk-lib, constructs (its peer), cdk-nag and cdk-nag-v2. */
  readonly nodeModules: string;
}

export type NewestCdkRelease = InstalledCdkRelease | { readonly unavailable: string };

const RECORD = path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'cdk-whatsapp-agent-pipeline', 'aws-cdk-lib-newest.json');

function installedNewest(): NewestCdkRelease {
  if (!existsSync(RECORD)) return { unavailable: 'no newest aws-cdk-lib is installed: `npm test` installs it (node scripts/install-newest-aws-cdk-lib.mjs)' };
  const record = JSON.parse(readFileSync(RECORD, 'utf8')) as Partial<InstalledCdkRelease> & { unavailable?: string };
  if (record.unavailable !== undefined) return { unavailable: record.unavailable };
  if (record.version === undefined || record.nodeModules === undefined || !existsSync(path.join(record.nodeModules, 'aws-cdk-lib', 'package.json'))) {
    return { unavailable: `the newest aws-cdk-lib recorded in ${RECORD} is not installed: run node scripts/install-newest-aws-cdk-lib.mjs` };
  }
  return { version: record.version, nodeModules: record.nodeModules };
}

/** Read once per test file that loads this module. */
export const NEWEST_AWS_CDK_LIB: NewestCdkRelease = installedNewest();

/** `describe` when the newest release is installed, else `describe.skip` (the title says why). */
export function describeOnNewest(title: string, body: (release: InstalledCdkRelease) => void): void {
  if ('unavailable' in NEWEST_AWS_CDK_LIB) {
    describe.skip(`${title} — skipped: ${NEWEST_AWS_CDK_LIB.unavailable}`, () => test('needs the newest aws-cdk-lib', () => undefined));
    return;
  }
  const release = NEWEST_AWS_CDK_LIB;
  describe(`${title} (aws-cdk-lib ${release.version}, the newest on the registry)`, () => body(release));
}
