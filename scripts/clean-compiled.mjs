// Removes jsii's output from lib/ before compiling, so a file that was moved or deleted in the
// sources cannot linger as stale .js/.d.ts and be published (package.json `files` takes lib/**/*.js).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const lib = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'lib');
for (const entry of fs.readdirSync(lib, { recursive: true })) {
  if (/\.(js|d\.ts)$/.test(entry)) {
    fs.rmSync(path.join(lib, entry));
  }
}
