import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURES = join(__dirname, '..', 'fixtures');

/** A recorded response shape from `test/fixtures/<folder>/<name>.json`, parsed. */
export function fixture<T = unknown>(folder: 'bedrock' | 'graph-api', name: string): T {
  return JSON.parse(fixtureText(folder, name)) as T;
}

/** The fixture's exact bytes, to replay over HTTP as recorded. */
export function fixtureText(folder: 'bedrock' | 'graph-api', name: string): string {
  return readFileSync(join(FIXTURES, folder, `${name}.json`), 'utf8');
}
