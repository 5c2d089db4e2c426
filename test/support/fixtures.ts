import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Reads a webhook fixture written from Meta's documented payload shapes. */
export function metaFixture(name: string): string {
  return readFileSync(join(__dirname, '..', 'fixtures', 'meta-webhook', `${name}.json`), 'utf8');
}
