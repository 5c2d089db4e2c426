// The End User Messaging media adapter: GetWhatsAppMessageMedia as its API reference shapes it
// (metadata alone first, then the service writing the file into the bucket under the key given,
// with the media id appended), its exceptions mapped as the sender maps them; and the turn's
// download step over real HTTP against the fake service, writing into the local S3 server.
import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { AwsApiError } from '../../../../lambda/core/adapters/aws/signed-aws-post';
import { createMediaClient, S3MediaStore } from '../../../../lambda/core/adapters/s3/s3-media-store';
import {
  EndUserMessagingMediaSource,
  endUserMessagingGetMedia,
  type GetWhatsAppMessageMedia,
  type GetWhatsAppMessageMediaInput,
  type GetWhatsAppMessageMediaOutput,
} from '../../../../lambda/core/adapters/whatsapp/end-user-messaging-media-source';
import { DownloadInboundMedia, type MediaOutcome } from '../../../../lambda/core/application/download-inbound-media';
import type { InboundTurn } from '../../../../lambda/core/domain/inbound-turn';
import type { InboundMedia } from '../../../../lambda/core/domain/media';
import { MediaSourceError } from '../../../../lambda/core/ports/media-source';
import { FakeEndUserMessaging } from '../../../../local/fake-whatsapp/fake-end-user-messaging';
import { FakeGraphApi } from '../../../../local/fake-whatsapp/fake-graph-api';

const META_PHONE_NUMBER_ID = '106540352242922';
const ORIGINATION_ID = 'phone-number-id-976c72a700aac43eaf573ae050example';
const PHONE_NUMBERS = new Map([[META_PHONE_NUMBER_ID, ORIGINATION_ID]]);
const PHOTO: InboundMedia = { kind: 'image', providerMediaId: '1013859600285441' };
const DESTINATION = { bucketName: 'pipeline-media', keyPrefix: 'media/pseudonym/wamid.HBgM%3D/' };

/** A service that answers `answers` in turn (an error is thrown), recording each request. */
function scripted(...answers: (GetWhatsAppMessageMediaOutput | Error)[]): { getMedia: GetWhatsAppMessageMedia; requests: GetWhatsAppMessageMediaInput[] } {
  const requests: GetWhatsAppMessageMediaInput[] = [];
  const getMedia: GetWhatsAppMessageMedia = async (input) => {
    requests.push(input);
    const answer = answers.shift();
    if (answer === undefined) throw new Error('No answer scripted');
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { getMedia, requests };
}

async function failureOf(promise: Promise<unknown>): Promise<MediaSourceError> {
  const error = await promise.then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  if (!(error instanceof MediaSourceError)) throw new Error(`Expected a MediaSourceError, got ${String(error)}`);
  return error;
}

describe('GetWhatsAppMessageMedia as the adapter asks it', () => {
  test('the description asks for the metadata alone, from the linked number that received the message, and reads the size in KB', async () => {
    const { getMedia, requests } = scripted({ mimeType: 'image/jpeg', fileSize: 180 });
    const source = new EndUserMessagingMediaSource({ getMedia, phoneNumbers: PHONE_NUMBERS });

    expect(await source.describe(PHOTO, META_PHONE_NUMBER_ID)).toEqual({ mimeType: 'image/jpeg', sizeBytes: 180 * 1024 });
    expect(requests).toEqual([{ mediaId: PHOTO.providerMediaId, originationPhoneNumberId: ORIGINATION_ID, metadataOnly: true }]);
  });

  test('an answer without a size leaves the size unknown; one without a type cannot be checked and is retried', async () => {
    const { getMedia } = scripted({ mimeType: 'application/pdf' }, {});
    const source = new EndUserMessagingMediaSource({ getMedia, phoneNumbers: PHONE_NUMBERS });

    expect(await source.describe(PHOTO, META_PHONE_NUMBER_ID)).toEqual({ mimeType: 'application/pdf' });
    expect(await failureOf(source.describe(PHOTO, META_PHONE_NUMBER_ID))).toMatchObject({ retryable: true });
  });

  test('the transfer names the bucket and the message prefix; the object is the prefix and the media id, as the service names it', async () => {
    const { getMedia, requests } = scripted({ mimeType: 'image/jpeg', fileSize: 2 });
    const source = new EndUserMessagingMediaSource({ getMedia, phoneNumbers: PHONE_NUMBERS });

    expect(await source.transferInto(PHOTO, META_PHONE_NUMBER_ID, DESTINATION)).toEqual({ objectKey: `${DESTINATION.keyPrefix}${PHOTO.providerMediaId}`, sizeBytes: 2048 });
    expect(requests).toEqual([{ mediaId: PHOTO.providerMediaId, originationPhoneNumberId: ORIGINATION_ID, destinationS3File: { bucketName: DESTINATION.bucketName, key: DESTINATION.keyPrefix } }]);
  });

  test('a number the construct was not given is refused for good, without a request', async () => {
    const { getMedia, requests } = scripted();
    const source = new EndUserMessagingMediaSource({ getMedia, phoneNumbers: PHONE_NUMBERS });

    expect(await failureOf(source.describe(PHOTO, '999999999999999'))).toMatchObject({ retryable: false });
    expect(requests).toEqual([]);
  });

  test.each([
    ['ThrottledRequestException', 429, 'Rate exceeded', true],
    ['DependencyException', 502, 'Meta did not answer', true],
    ['InternalServiceException', 500, 'Internal error', true],
    ['AccessDeniedException', 403, 'not authorized to perform: social-messaging:GetWhatsAppMessageMedia', true],
    ['ResourceNotFoundException', 404, 'Phone number not linked', true],
    ['InvalidParametersException', 400, 'mediaId is malformed', false],
    ['ValidationException', 400, '(#131053) Media upload error', false],
    ['SomethingNewException', 503, 'A server fault', true],
    ['SomethingNewException', 400, 'A client fault', false],
  ] as const)('%s (HTTP %i, "%s"): retryable %s', async (name, status, message, retryable) => {
    const { getMedia } = scripted(new AwsApiError(name, message, status));
    const source = new EndUserMessagingMediaSource({ getMedia, phoneNumbers: PHONE_NUMBERS });

    const failure = await failureOf(source.transferInto(PHOTO, META_PHONE_NUMBER_ID, DESTINATION));
    expect(failure).toMatchObject({ retryable, message: expect.stringContaining(name) });
  });

  test('no answer at all (the connection failed) is worth another attempt', async () => {
    const { getMedia } = scripted(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } }));
    const source = new EndUserMessagingMediaSource({ getMedia, phoneNumbers: PHONE_NUMBERS });

    expect(await failureOf(source.describe(PHOTO, META_PHONE_NUMBER_ID))).toMatchObject({ retryable: true });
  });
});

describe('the download step of a turn on End User Messaging, against the fake service and the local S3 server', () => {
  const LIMITS = { maxBytes: 4096, allowedMimeTypes: ['image/*', 'application/pdf'] };
  const PHOTO_BYTES = new Uint8Array(1500).fill(9);
  const client = new S3Client({ endpoint: process.env.AWS_ENDPOINT_URL_S3, forcePathStyle: true });
  const bucketName = `media-${randomUUID()}`;
  let meta: FakeGraphApi;
  let service: FakeEndUserMessaging;

  beforeAll(async () => {
    meta = await FakeGraphApi.start();
    service = await FakeEndUserMessaging.start({ meta, phoneNumbers: new Map([[ORIGINATION_ID, META_PHONE_NUMBER_ID]]) });
    await client.send(new CreateBucketCommand({ Bucket: bucketName }));
  });
  afterAll(async () => {
    await service.close();
    await meta.close();
    client.destroy();
  });

  function world() {
    const store = new S3MediaStore({ bucketName, customerKey: async (customerId) => `pseudonym-of-${customerId}`, client: createMediaClient({ endpoint: process.env.AWS_ENDPOINT_URL_S3 }) });
    const getMedia = endUserMessagingGetMedia({ endpoint: service.endpoint, region: 'us-east-1', credentials: async () => ({ accessKeyId: 'local', secretAccessKey: 'local' }), maxAttempts: 1 });
    const outcomes: MediaOutcome[] = [];
    const download = new DownloadInboundMedia({ source: new EndUserMessagingMediaSource({ getMedia, phoneNumbers: PHONE_NUMBERS }), store, limits: LIMITS, onOutcome: (outcome) => outcomes.push(outcome) });
    return { download, outcomes };
  }

  function turnWith(bytes: Uint8Array, mimeType: string, fileSize?: number): InboundTurn {
    const providerMediaId = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
    meta.registerMedia(providerMediaId, { bytes, mimeType, fileSize });
    const media: InboundMedia = { kind: 'image', providerMediaId };
    return { customerId: `55119${Math.floor(Math.random() * 1e8)}`, messageId: `wamid.${randomUUID()}`, businessPhoneNumberId: META_PHONE_NUMBER_ID, text: '[image]', media } as unknown as InboundTurn;
  }

  async function objectsOf(customerId: string): Promise<string[]> {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucketName, Prefix: `media/pseudonym-of-${customerId}/` }));
    return (listed.Contents ?? []).map((entry) => entry.Key!);
  }

  test('the service writes the photo into the bucket under the message prefix: one object, its exact bytes and type', async () => {
    const { download, outcomes } = world();
    const turn = turnWith(PHOTO_BYTES, 'image/jpeg');

    const media = await download.resolve(turn, false);

    const objectKey = `media/pseudonym-of-${turn.customerId}/${encodeURIComponent(turn.messageId)}/${turn.media!.providerMediaId}`;
    expect(media).toMatchObject({ state: 'stored', mimeType: 'image/jpeg', objectKey, sizeBytes: 2048 });
    expect(await objectsOf(turn.customerId)).toEqual([objectKey]);
    const stored = await client.send(new GetObjectCommand({ Bucket: bucketName, Key: objectKey }));
    expect(stored.ContentType).toBe('image/jpeg');
    expect(await stored.Body!.transformToByteArray()).toEqual(PHOTO_BYTES);
    expect(outcomes).toEqual([{ kind: 'downloaded', sizeBytes: 2048 }]);
  });

  test.each([
    ['too large by the size the metadata reports', new Uint8Array(10), 'image/png', 8192, 'too_large'],
    ['a type not allowed', new Uint8Array(10), 'video/mp4', undefined, 'type_not_allowed'],
  ] as const)('%s: refused from the metadata, no byte moved', async (_, bytes, mimeType, fileSize, refusal) => {
    const { download, outcomes } = world();
    const turn = turnWith(bytes, mimeType, fileSize);
    const downloadsBefore = meta.mediaRequests('download');

    expect(await download.resolve(turn, false)).toMatchObject({ state: 'refused', refusal, mimeType });
    expect(meta.mediaRequests('download')).toBe(downloadsBefore);
    expect(await objectsOf(turn.customerId)).toEqual([]);
    expect(outcomes).toEqual([{ kind: 'refused', refusal }]);
  });

  test('a transfer Meta fails is thrown for the turn to retry; the retry writes the one object', async () => {
    const { download } = world();
    const turn = turnWith(PHOTO_BYTES, 'image/jpeg');
    meta.failMedia('download', 1);

    await expect(download.resolve(turn, false)).rejects.toMatchObject({ name: 'MediaSourceError', retryable: true });
    expect(await download.resolve(turn, false)).toMatchObject({ state: 'stored' });
    expect(await objectsOf(turn.customerId)).toHaveLength(1);
  });

  test('on the last attempt a failing transfer leaves the message as text with a note', async () => {
    const { download, outcomes } = world();
    const turn = turnWith(PHOTO_BYTES, 'image/jpeg');
    meta.failMedia('download', 1);

    expect(await download.resolve(turn, true)).toMatchObject({ state: 'failed', refusal: 'download_failed' });
    expect(outcomes).toEqual([{ kind: 'failed', error: expect.any(MediaSourceError) }]);
  });
});
