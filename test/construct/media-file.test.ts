import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AGENT_BACKEND_KINDS } from '../../lib/contract';
import { stagedFunction, testPlan } from '../support/deployment-settings';

// The orchestrator's and the operator's media code is a file of its own beside the handler,
// `media.js` (scripts/bundle-lambdas.mjs): the functions reach lambda/composition/media.ts only
// through the `require` of media-on-demand.ts, so a text-only turn loads the handler's files
// without it, and the first attachment loads it on the handler's own copy of what both use.

const repoRoot = path.join(__dirname, '..', '..');

/** Modules only attachments need; each must be in `media.js`, none in the files the handler loads. */
const MEDIA_ONLY_MODULES = [
  'lambda/composition/media.ts',
  'lambda/core/adapters/s3/s3-media-store.ts',
  'lambda/core/adapters/whatsapp/whatsapp-media-source.ts',
  'lambda/core/adapters/whatsapp/graph-api-media-source.ts',
  'lambda/core/application/download-inbound-media.ts',
];

interface BundleOutput {
  readonly inputs: Record<string, unknown>;
  readonly imports: readonly { readonly path: string; readonly kind: string; readonly external?: boolean }[];
}

function outputsOf(name: string): Map<string, BundleOutput> {
  const metafile = JSON.parse(fs.readFileSync(path.join(repoRoot, '.bundles', `${name}.meta.json`), 'utf8')) as { outputs: Record<string, BundleOutput> };
  return new Map(Object.entries(metafile.outputs).map(([file, output]) => [path.basename(file), output]));
}

/** `file` and every file it requires at its top, transitively. */
function loadedWith(outputs: Map<string, BundleOutput>, file: string, loaded = new Set<string>()): Set<string> {
  if (loaded.has(file)) return loaded;
  loaded.add(file);
  for (const imported of outputs.get(file)!.imports) {
    if (imported.kind === 'import-statement' && !imported.external) loadedWith(outputs, path.basename(imported.path), loaded);
  }
  return loaded;
}

const inputsOf = (outputs: Map<string, BundleOutput>, files: Iterable<string>) => new Set([...files].flatMap((file) => Object.keys(outputs.get(file)!.inputs)));

describe.each(['orchestrator', 'operator'])('the %s bundle', (name) => {
  test('keeps the media modules in media.js, out of the files its handler loads, with no module in both', () => {
    const outputs = outputsOf(name);
    const handlerFiles = loadedWith(outputs, 'index.js');
    expect(handlerFiles).not.toContain('media.js');
    const handlerInputs = inputsOf(outputs, handlerFiles);
    const mediaInputs = inputsOf(outputs, [...loadedWith(outputs, 'media.js')].filter((file) => !handlerFiles.has(file)));

    for (const module of MEDIA_ONLY_MODULES) {
      expect(handlerInputs).not.toContain(module);
      expect(mediaInputs).toContain(module);
    }
    expect([...mediaInputs].filter((input) => handlerInputs.has(input))).toEqual([]);
    // The handler requires the media file where media-on-demand.ts does, and nothing else does.
    expect(outputs.get('index.js')!.imports).toContainEqual(expect.objectContaining({ path: './media.js', kind: 'require-call', external: true }));
  });
});

test('the staged orchestrator composes with media on without loading media.js, which then loads on the handler\'s files and signs a link', () => {
  const orchestrator = stagedFunction(
    'orchestrator',
    testPlan('media-file-table', 'http://127.0.0.1:9/000000000000/turns.fifo', { agent: { backend: AGENT_BACKEND_KINDS.bedrock, modelId: 'amazon.nova-micro-v1:0' }, media: { bucketName: 'media-bucket' } }),
  );
  const asset = orchestrator.folder;
  const script = `const loaded = () => Object.keys(require.cache).filter((file) => file.startsWith(${JSON.stringify(asset)})).map((file) => file.slice(${asset.length + 1})).sort();
const { handler } = require(${JSON.stringify(path.join(asset, 'index.js'))});
// A record without a customer: the turn drops it, as a cold start's first event that needs no remote call.
handler({ Records: [{ messageId: 'cold', body: '{}', attributes: { ApproximateReceiveCount: '1' } }] }, { getRemainingTimeInMillis: () => 90000, functionName: 'orchestrator', awsRequestId: 'cold' }).then(async () => {
  const textOnly = loaded();
  // What media-on-demand.ts requires at the first attachment.
  const media = require(${JSON.stringify(path.join(asset, 'media.js'))});
  const store = media.composeMediaStore({ bucketName: 'media-bucket', limits: { maxBytes: 1024, allowedMimeTypes: ['image/jpeg'] } }, { table: {} }, { s3Endpoint: 'http://127.0.0.1:9' });
  const link = await store.presignedGetUrl('media/object', 60);
  process.stdout.write(JSON.stringify({ textOnly, withMedia: loaded(), link }));
});`;
  const child = spawnSync(process.execPath, ['-e', script], {
    encoding: 'utf8',
    env: {
      ...process.env,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      ...orchestrator.environment,
      POWERTOOLS_METRICS_DISABLED: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  });
  expect(child.stderr).toBe('');
  const { textOnly, withMedia, link } = JSON.parse(child.stdout) as { textOnly: string[]; withMedia: string[]; link: string };
  expect(textOnly).toContain('index.js');
  expect(textOnly).not.toContain('media.js');
  // media.js adds itself only: what it shares with the handler is the handler's loaded copy.
  expect(withMedia).toEqual([...textOnly, 'media.js'].sort());
  expect(link).toMatch(/^http:\/\/127\.0\.0\.1:9\/media-bucket\/media\/object\?.*X-Amz-Signature=[0-9a-f]{64}/);
});
