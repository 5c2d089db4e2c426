import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURES = join(__dirname, '..', 'fixtures');

/** Recorded answers of Bedrock and the Graph API, and webhook payloads written from Meta's documented shapes. */
type FixtureFolder = 'bedrock' | 'graph-api' | 'meta-webhook';

/** A recorded response shape from `test/fixtures/<folder>/<name>.json`, parsed. */
export function fixture<T = unknown>(folder: FixtureFolder, name: string): T {
  return JSON.parse(fixtureText(folder, name)) as T;
}

/** The fixture's exact bytes, to replay over HTTP as recorded. */
export function fixtureText(folder: FixtureFolder, name: string): string {
  return readFileSync(join(FIXTURES, folder, `${name}.json`), 'utf8');
}

/** A webhook notification from `test/fixtures/meta-webhook/`, as Meta sends its body. */
export function metaFixture(name: string): string {
  return fixtureText('meta-webhook', name);
}
