import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { readXml } from '../../../../lambda/core/adapters/aws/xml-reader';
import { createMediaClient, mediaBucketUrl, readListing, S3MediaStore } from '../../../../lambda/core/adapters/s3/s3-media-store';
import { mediaLinkResponse } from '../../../../lambda/core/domain/media';
import { MediaStoreError } from '../../../../lambda/core/ports/media-store';

const endpoint = process.env.AWS_ENDPOINT_URL_S3!;
const bucketName = `media-adapter-${randomUUID()}`;
const sdk = new S3Client({ endpoint, forcePathStyle: true });
const PHOTO = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);

beforeAll(() => sdk.send(new CreateBucketCommand({ Bucket: bucketName })));
afterAll(() => sdk.destroy());

function localStore(name = bucketName): S3MediaStore {
  return new S3MediaStore({ bucketName: name, customerKey: async (customerId) => `pseudonym-of-${customerId}`, client: createMediaClient({ endpoint }) });
}

describe('the media bucket without the S3 client', () => {
  test('stores, reads, lists and erases objects whose keys need escaping', async () => {
    const store = localStore();
    const customerId = randomUUID();
    const stored = await store.put(customerId, "wamid.HBgM+ab/c=d&e'f", PHOTO, 'image/jpeg');
    await store.put(customerId, 'wamid.second', new Uint8Array([9]), 'application/pdf');
    expect(await store.get(stored.objectKey)).toEqual(PHOTO);
    expect(await store.listCustomerObjects(customerId)).toEqual(expect.arrayContaining([stored, { objectKey: `media/pseudonym-of-${customerId}/wamid.second`, sizeBytes: 1 }]));
    expect(await store.deleteCustomerObjects(customerId)).toBe(2);
    expect(await store.listCustomerObjects(customerId)).toEqual([]);
  });

  test('a presigned link reads the object from the local server without credentials', async () => {
    const store = localStore();
    const { objectKey } = await store.put(randomUUID(), 'wamid.linked', PHOTO, 'image/jpeg');
    const link = new URL(await store.presignedGetUrl(objectKey, 300));
    expect(link.origin).toBe(new URL(endpoint).origin);
    expect(link.pathname).toBe(`/${bucketName}/${objectKey.split('/').map(encodeURIComponent).join('/')}`);
    const answer = await fetch(link);
    expect(answer.status).toBe(200);
    expect(new Uint8Array(await answer.arrayBuffer())).toEqual(PHOTO);
  });

  test('a link asks S3 to answer as a download or in place, signed into it: a customer’s SVG downloads under its name, a photo shows as exactly its type', async () => {
    const store = localStore();
    const svg = await store.put(randomUUID(), 'wamid.svg', new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(document.domain)"/>'), 'image/svg+xml');
    const download = await fetch(await store.presignedGetUrl(svg.objectKey, 300, mediaLinkResponse({ kind: 'image', mimeType: 'image/svg+xml', filename: 'logo.svg' })));
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="logo.svg"; filename*=UTF-8''logo.svg`);
    const photo = await store.put(randomUUID(), 'wamid.jpg', PHOTO, 'image/jpeg; name=x');
    const inline = await fetch(await store.presignedGetUrl(photo.objectKey, 300, mediaLinkResponse({ kind: 'image', mimeType: 'image/jpeg; name=x' })));
    expect(inline.headers.get('content-disposition')).toBe(`inline; filename="image"; filename*=UTF-8''image`);
    expect(inline.headers.get('content-type')).toBe('image/jpeg');
    // The overrides are part of what is signed: changing one breaks the signature.
    // What S3 answers with is signed into the link: a holder who changes it gets a signature mismatch on AWS.
    const link = new URL(await store.presignedGetUrl(photo.objectKey, 300, mediaLinkResponse({ kind: 'document', mimeType: 'text/html' })));
    expect(link.searchParams.get('response-content-disposition')).toMatch(/^attachment; /);
  });

  test('on AWS a presigned link is virtual-hosted, expires as asked and signs the host only', async () => {
    const store = new S3MediaStore({
      bucketName: 'media-bucket',
      customerKey: async () => 'p',
      client: createMediaClient({ credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } }),
      env: { AWS_REGION: 'sa-east-1' },
    });
    const link = new URL(await store.presignedGetUrl('media/p/wamid.x%3D', 120));
    expect(link.origin).toBe('https://media-bucket.s3.sa-east-1.amazonaws.com');
    expect(link.pathname).toBe('/media/p/wamid.x%253D');
    expect(Object.fromEntries(link.searchParams)).toMatchObject({
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': expect.stringMatching(/^AKIDEXAMPLE\/\d{8}\/sa-east-1\/s3\/aws4_request$/),
      'X-Amz-Expires': '120',
      'X-Amz-SignedHeaders': 'host',
      'X-Amz-Signature': expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  test('the bucket is addressed path-style on a local server and for a dotted name, virtual-hosted otherwise', () => {
    expect(mediaBucketUrl('media', 'http://127.0.0.1:4566/', 'us-east-1')).toBe('http://127.0.0.1:4566/media');
    expect(mediaBucketUrl('media', undefined, 'cn-north-1')).toBe('https://media.s3.cn-north-1.amazonaws.com.cn');
    expect(mediaBucketUrl('media.example.com', undefined, 'sa-east-1')).toBe('https://s3.sa-east-1.amazonaws.com/media.example.com');
  });

  test('a missing object is the deployment’s to fix, not retried', async () => {
    const failure = await localStore().get(`media/nobody/${randomUUID()}`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MediaStoreError);
    expect(failure).toMatchObject({ retryable: false, message: expect.stringContaining('NoSuchKey') });
  });

  test('a bucket that cannot be reached may pass: retryable', async () => {
    const unreachable = new S3MediaStore({ bucketName, customerKey: async () => 'p', client: createMediaClient({ endpoint: 'http://127.0.0.1:9' }) });
    await expect(unreachable.listCustomerObjects('anyone')).rejects.toMatchObject({ name: 'MediaStoreError', retryable: true });
  });
});

describe('a ListObjectsV2 page', () => {
  const page = (body: string) => readListing(readXml(`<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name>${body}</ListBucketResult>`));

  test('yields its objects and, while truncated, the next token', () => {
    expect(page('<IsTruncated>true</IsTruncated><Contents><Key>media/p/a&amp;b</Key><Size>12</Size><ETag>&quot;x&quot;</ETag></Contents><NextContinuationToken>1/abc=</NextContinuationToken>')).toEqual({
      objects: [{ objectKey: 'media/p/a&b', sizeBytes: 12 }],
      continuationToken: '1/abc=',
    });
    expect(page('<IsTruncated>false</IsTruncated>')).toEqual({ objects: [] });
  });

  test.each([
    ['a truncated page without a token', '<IsTruncated>true</IsTruncated>'],
    ['no IsTruncated', '<Contents><Key>k</Key><Size>1</Size></Contents>'],
    ['an object without a size', '<IsTruncated>false</IsTruncated><Contents><Key>k</Key></Contents>'],
    ['a size that is not a count', '<IsTruncated>false</IsTruncated><Contents><Key>k</Key><Size>-1</Size></Contents>'],
  ])('refuses %s', (_, body) => {
    expect(() => page(body)).toThrow(/IsTruncated|Key|Size|NextContinuationToken/);
  });

  test('refuses an answer that is not a listing', () => {
    expect(() => readListing(readXml('<Error><Code>SlowDown</Code></Error>'))).toThrow('Expected ListBucketResult, not Error');
  });
});
