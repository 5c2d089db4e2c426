import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { AGENT_BACKEND_KINDS } from '../../lib/contract';
import { onDemandSplit } from '../support/bundle-outputs';
import { stagedFunction, testPlan } from '../support/deployment-settings';

// The orchestrator's and the operator's media code is a file of its own beside the handler,
// `media.js` (scripts/bundle-lambdas.mjs): the functions reach lambda/composition/media.ts only
// through the `require` of media-on-demand.ts, so a text-only turn loads the handler's files
// without it, and the first attachment loads it on the handler's own copy of what both use.

/** Modules only attachments need; each must be in `media.js`, none in the files the handler loads. */
const MEDIA_ONLY_MODULES = [
  'lambda/composition/media.ts',
  'lambda/core/adapters/s3/s3-media-store.ts',
  'lambda/core/adapters/whatsapp/whatsapp-media-source.ts',
  'lambda/core/adapters/whatsapp/graph-api-media-source.ts',
  'lambda/core/application/download-inbound-media.ts',
];

describe.each(['orchestrator', 'operator'])('the %s bundle', (name) => {
  test('keeps the media modules in media.js, out of the files its handler loads, with no module in both', () => {
    const { outputs, handlerFiles, handlerInputs, onDemandInputs: mediaInputs } = onDemandSplit(name, 'media.js');
    expect(handlerFiles).not.toContain('media.js');

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
