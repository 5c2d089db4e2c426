// Bundles the operator tools (bin/cli.ts and its commands, the AWS SDK included) into
// `assets/cli/index.js`, the package's `bin`: `npx cdk-whatsapp-agent-pipeline <command>` then runs
// with plain node, without TypeScript, tsx or this repository's dev dependencies.
import { chmod, copyFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { writeMetafile } from './bundle-metafile.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'assets', 'cli');
const outfile = path.join(outdir, 'index.js');

await rm(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: [path.join(root, 'bin', 'cli.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  // The operator's machine: package.json's engines field.
  target: 'node20',
  format: 'cjs',
  minify: true,
  keepNames: true,
  mainFields: ['module', 'main'],
  banner: { js: '#!/usr/bin/env node' },
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
});
await writeMetafile('cli', result.metafile);
// `eval` starts DynamoDB Local through its loopback launcher, which local-servers.ts finds beside the code.
await copyFile(path.join(root, 'local', 'servers', 'LoopbackDynamoDbLocal.java'), path.join(outdir, 'LoopbackDynamoDbLocal.java'));
await chmod(outfile, 0o755);
const { size } = await stat(outfile);
console.log(`assets/cli/index.js  ${(size / 1024).toFixed(1)} KiB`);
