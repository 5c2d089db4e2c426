import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createMediaClient, S3MediaStore } from '../../../../lambda/core/adapters/s3/s3-media-store';
import { StaticCredentialsProvider } from '../../../../lambda/core/adapters/secrets/static-credentials-provider';
import { GraphApiMediaSource } from '../../../../lambda/core/adapters/whatsapp/graph-api-media-source';
import { DownloadInboundMedia, type MediaOutcome } from '../../../../lambda/core/application/download-inbound-media';
import type { InboundTurn } from '../../../../lambda/core/domain/inbound-turn';
import type { InboundMedia } from '../../../../lambda/core/domain/media';
import { textWithMediaNote } from '../../../../lambda/core/domain/media-limits';
import { MediaStoreError, type MediaStore } from '../../../../lambda/core/ports/media-store';
import { FakeGraphApi } from '../../../../local/fake-whatsapp/fake-graph-api';

const LIMITS = { maxBytes: 1024, allowedMimeTypes: ['image/*', 'application/pdf', 'audio/ogg'] };
const PHOTO = new Uint8Array(600).fill(7);

let graph: FakeGraphApi;
// The suite's own look at the bucket, beside the adapter under test.
const client = new S3Client({ endpoint: process.env.AWS_ENDPOINT_URL_S3, forcePathStyle: true });
const bucketName = `media-${randomUUID()}`;

beforeAll(async () => {
  graph = await FakeGraphApi.start();
  await client.send(new CreateBucketCommand({ Bucket: bucketName }));
});
afterAll(async () => {
  await graph.close();
  client.destroy();
});

function turnWith(media: InboundMedia, customerId = `55119${Math.floor(Math.random() * 1e8)}`): InboundTurn {
  return { customerId, messageId: `wamid.${randomUUID()}`, text: '[image]', messageType: media.kind, media } as unknown as InboundTurn;
}

function world(options: { store?: MediaStore } = {}) {
  const store = new S3MediaStore({ bucketName, customerKey: async (customerId) => `pseudonym-of-${customerId}`, client: createMediaClient({ endpoint: process.env.AWS_ENDPOINT_URL_S3 }) });
  const outcomes: MediaOutcome[] = [];
  const source = new GraphApiMediaSource({ baseUrl: graph.baseUrl, credentials: new StaticCredentialsProvider({ appSecret: 's', verifyToken: 'v', accessToken: graph.accessToken }) });
  const download = new DownloadInboundMedia({ source, store: options.store ?? store, limits: LIMITS, onOutcome: (outcome) => outcomes.push(outcome) });
  return { download, store, outcomes };
}

async function objectsOf(customerId: string): Promise<string[]> {
  const listed = await client.send(new ListObjectsV2Command({ Bucket: bucketName, Prefix: `media/pseudonym-of-${customerId}/` }));
  return (listed.Contents ?? []).map((entry) => entry.Key!);
}

function registered(bytes: Uint8Array, mimeType: string, fileSize?: number): InboundMedia {
  const providerMediaId = randomUUID();
  graph.registerMedia(providerMediaId, { bytes, mimeType, fileSize });
  return { kind: mimeType.startsWith('image/') ? 'image' : 'document', providerMediaId };
}

describe('the download step of a turn', () => {
  test('stores an attachment within the limits under the customer’s pseudonym and the message id, with its type and size', async () => {
    const { download, outcomes } = world();
    const turn = turnWith(registered(PHOTO, 'image/jpeg'));
    const media = await download.resolve(turn, false);
    expect(media).toMatchObject({ state: 'stored', mimeType: 'image/jpeg', sizeBytes: 600, objectKey: `media/pseudonym-of-${turn.customerId}/${encodeURIComponent(turn.messageId)}` });
    expect(media!.sha256).toMatch(/^[0-9a-f]{64}$/);
    const stored = await client.send(new GetObjectCommand({ Bucket: bucketName, Key: media!.objectKey }));
    expect(stored.ContentType).toBe('image/jpeg');
    expect(await stored.Body!.transformToByteArray()).toEqual(PHOTO);
    expect(outcomes).toEqual([{ kind: 'downloaded', sizeBytes: 600 }]);
  });

  test('a message without an attachment costs no request at all', async () => {
    const before = graph.mediaRequests('metadata');
    expect(await world().download.resolve({ customerId: '5511900000000', messageId: 'wamid.text', text: 'oi' } as unknown as InboundTurn, false)).toBeUndefined();
    expect(graph.mediaRequests('metadata')).toBe(before);
  });

  test.each([
    ['too large by the size Meta reports: refused before a byte is fetched', new Uint8Array(2048), 'image/png', undefined, 'too_large'],
    ['too large although Meta reports less: refused while reading, nothing stored', new Uint8Array(2048), 'image/png', 100, 'too_large'],
    ['a type not allowed: refused before a byte is fetched', new Uint8Array(10), 'video/mp4', undefined, 'type_not_allowed'],
  ] as const)('%s', async (_, bytes, mimeType, fileSize, refusal) => {
    const { download, outcomes } = world();
    const turn = turnWith(registered(bytes, mimeType, fileSize));
    const downloadsBefore = graph.mediaRequests('download');
    const media = await download.resolve(turn, false);
    expect(media).toMatchObject({ state: 'refused', refusal, mimeType });
    expect(media!.objectKey).toBeUndefined();
    expect(await objectsOf(turn.customerId)).toEqual([]);
    expect(outcomes).toEqual([{ kind: 'refused', refusal }]);
    if (fileSize === undefined) expect(graph.mediaRequests('download')).toBe(downloadsBefore);
    expect(textWithMediaNote('[image]', media!)).toMatch(/^\[image\]\n\[(image|document) not kept: /);
  });

  test.each([
    ['the metadata GET answers 500', () => graph.failMedia('metadata', 1, 500)],
    ['the metadata GET loses its connection', () => graph.failMedia('metadata', 1, 0)],
    ['the URL GET answers 503', () => graph.failMedia('download', 1, 503)],
    ['the URL GET answers 404 (the short-lived URL expired)', () => graph.failMedia('download', 1, 404)],
  ])('%s: the attempt fails for the turn’s retry, which stores the object once', async (_, inject) => {
    const { download, outcomes } = world();
    const turn = turnWith(registered(PHOTO, 'image/jpeg'));
    inject();
    await expect(download.resolve(turn, false)).rejects.toMatchObject({ retryable: true });
    expect(await objectsOf(turn.customerId)).toEqual([]);
    expect(await download.resolve(turn, false)).toMatchObject({ state: 'stored' });
    expect(await download.resolve(turn, false)).toMatchObject({ state: 'stored' });
    expect(await objectsOf(turn.customerId)).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.kind === 'downloaded')).toHaveLength(2);
  });

  test('the bucket put fails: the attempt fails for the retry, which stores the object once', async () => {
    const { store } = world();
    let failures = 1;
    const flaky: MediaStore = Object.assign(Object.create(store) as MediaStore, {
      put: async (...args: Parameters<MediaStore['put']>) => {
        if (failures-- > 0) throw new MediaStoreError('The media bucket could not store (ServiceUnavailable)', true);
        return store.put(...args);
      },
    });
    const { download } = world({ store: flaky });
    const turn = turnWith(registered(PHOTO, 'image/jpeg'));
    await expect(download.resolve(turn, false)).rejects.toBeInstanceOf(MediaStoreError);
    expect(await download.resolve(turn, false)).toMatchObject({ state: 'stored' });
    expect(await objectsOf(turn.customerId)).toHaveLength(1);
  });

  test('on the turn’s last attempt a failed download lets the message go on as text with a download_failed note', async () => {
    const { download, outcomes } = world();
    const turn = turnWith(registered(PHOTO, 'image/jpeg'));
    graph.failMedia('download', 1, 500);
    const media = await download.resolve(turn, true);
    expect(media).toMatchObject({ state: 'failed', refusal: 'download_failed', providerMediaId: turn.media!.providerMediaId });
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['failed']);
    expect(textWithMediaNote('[image]', media!)).toBe('[image]\n[image not kept: the file could not be downloaded]');
    expect(await objectsOf(turn.customerId)).toEqual([]);
  });

  test('an id Meta does not know fails at once, without waiting for the last attempt (no retry can fix it)', async () => {
    const { download } = world();
    const turn = turnWith({ kind: 'image', providerMediaId: 'never-registered' });
    expect(await download.resolve(turn, false)).toMatchObject({ state: 'failed', refusal: 'download_failed' });
  });

  test('a rejected token is read again once, as after a rotation; the token goes in the header only', async () => {
    const { download } = world();
    const turn = turnWith(registered(PHOTO, 'image/jpeg'));
    const rotating = new GraphApiMediaSource({
      baseUrl: graph.baseUrl,
      credentials: { get: async ({ forceRefresh } = {}) => ({ appSecret: 's', verifyToken: 'v', accessToken: forceRefresh ? graph.accessToken : 'stale-token' }) },
    });
    const description = await rotating.describe(turn.media!);
    expect(description.url).not.toContain(graph.accessToken);
    expect(await download.resolve(turn, false)).toMatchObject({ state: 'stored' });
  });

  test('the token never goes to a URL that is not https (plain http to this machine alone)', async () => {
    expect(() => new GraphApiMediaSource({ baseUrl: 'http://graph.example.com/v23.0', credentials: new StaticCredentialsProvider({ appSecret: 's', verifyToken: 'v', accessToken: 't' }) })).toThrow(/https/);
  });
});

describe('where the access token goes', () => {
  /** A Graph API on this machine whose media metadata names `url`, and every request that reached it. */
  async function graphNaming(url: (own: string) => string): Promise<{ readonly baseUrl: string; readonly requests: string[]; close(): Promise<void> }> {
    const requests: string[] = [];
    const server = createServer((request, response) => {
      requests.push(request.url ?? '');
      if (request.url?.startsWith('/v23.0/')) return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: url(own), mime_type: 'image/jpeg', file_size: 600 }));
      // Anything else is the "download": a redirect to the fake Graph API's real download.
      response.writeHead(302, { location: `${graph.baseUrl.replace(/\/v[\d.]+$/, '')}/media-download/anything` }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const own = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { baseUrl: `${own}/v23.0`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }
  const credentials = new StaticCredentialsProvider({ appSecret: 's', verifyToken: 'v', accessToken: 'the-token' });
  const media: InboundMedia = { kind: 'image', providerMediaId: '1479537139650973' };

  test('a media URL on any host but Meta’s media hosts is refused before anything is sent there, and not retried', async () => {
    const meta = await graphNaming(() => 'https://attacker.example.com/whatsapp_business/attachments/?mid=1');
    try {
      const refusal = await new GraphApiMediaSource({ baseUrl: meta.baseUrl, credentials }).describe(media).catch((error: unknown) => error);
      expect(refusal).toMatchObject({ name: 'MediaSourceError', retryable: false, message: expect.stringContaining('attacker.example.com is not one of graph.facebook.com, 127.0.0.1, lookaside.fbsbx.com') });
    } finally {
      await meta.close();
    }
  });

  test('inside Lambda, loopback is the runtime API: neither a Graph API root nor a media URL there gets the token', async () => {
    const meta = await graphNaming((own) => `${own}/2018-06-01/runtime/invocation/next`);
    const source = new GraphApiMediaSource({ baseUrl: meta.baseUrl, credentials });
    const description = await source.describe(media);
    process.env.AWS_LAMBDA_RUNTIME_API = '127.0.0.1:9001';
    try {
      expect(() => new GraphApiMediaSource({ baseUrl: meta.baseUrl, credentials })).toThrow(/outside Lambda/);
      await expect(source.describe(media)).rejects.toMatchObject({ retryable: false, message: expect.stringContaining('loopback inside Lambda is the runtime API') });
      await expect(source.fetch(description, LIMITS.maxBytes)).rejects.toMatchObject({ retryable: false });
      expect(meta.requests).toEqual(['/v23.0/1479537139650973']);
    } finally {
      delete process.env.AWS_LAMBDA_RUNTIME_API;
      await meta.close();
    }
  });

  test('a redirect is not followed: the token never reaches where it points', async () => {
    const meta = await graphNaming((own) => `${own}/download`);
    const downloadsBefore = graph.mediaRequests('download');
    try {
      const source = new GraphApiMediaSource({ baseUrl: meta.baseUrl, credentials });
      await expect(source.fetch(await source.describe(media), LIMITS.maxBytes)).rejects.toMatchObject({ name: 'MediaSourceError', retryable: false, message: expect.stringContaining('answered a redirect (HTTP 302), which is not followed') });
      expect(graph.mediaRequests('download')).toBe(downloadsBefore);
    } finally {
      await meta.close();
    }
  });
});
