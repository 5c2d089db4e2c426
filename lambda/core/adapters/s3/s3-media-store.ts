import { createHash } from 'node:crypto';
import { credentialProvider, type AwsCredentials } from '../aws/aws-identity';
import { mediaBucketUrl } from './media-bucket-url';
import { MEDIA_DEFAULTS } from '../../../../lib/contract';
import type { MediaLinkResponse } from '../../domain/media';
import { type MediaDestination, MediaStoreError, type MediaStore, type StoredObject } from '../../ports/media-store';
import type { RequestTimeouts } from '../aws/request-timeouts';
import { type AwsCallOptions, type AwsService, encodePathSegment, type PresignedAwsGet, presignedAwsGet, type SignedAwsPost, signedAwsPost } from '../aws/signed-aws-post';
import { childOf, childrenOf, escapeXml, readXml, type XmlElement, XmlReadError } from '../aws/xml-reader';

export { mediaBucketUrl } from './media-bucket-url';

/** A download waits for the bucket; a put of 16 MiB takes seconds, never a minute. */
const MEDIA_REQUEST_TIMEOUTS: RequestTimeouts = { connectionTimeoutMs: 3_000, requestTimeoutMs: 30_000, maxAttempts: 3 };

/** DeleteObjects takes at most this many keys. */
const DELETE_BATCH = 1_000;

/** S3's `<Error><Code>NoSuchKey</Code><Message>…</Message></Error>`; nothing for other bodies (a proxy's page: the status names it). */
function xmlErrorOf(text: string): { code?: string; message?: string } {
  try {
    const error = readXml(text);
    return error.name === 'Error' ? { code: childOf(error, 'Code')?.text, message: childOf(error, 'Message')?.text } : {};
  } catch {
    return {};
  }
}

const S3: AwsService = { endpointPrefix: 's3', signingName: 's3', endpointVariable: 'AWS_ENDPOINT_URL_S3', uriEscapePath: false, errorOfBody: xmlErrorOf };

/** Where the media bucket is called: a local server (`endpoint`, path-style) or AWS, as whom. */
export interface MediaClient {
  readonly endpoint?: string;
  readonly credentials?: AwsCredentials;
}

export interface S3MediaStoreOptions {
  readonly bucketName: string;
  /**
   * What the keys call the customer: the audit's pseudonym (an HMAC of the id under the
   * deployment's salt), so no object key names a phone number and erasure finds every object from
   * the customer id alone.
   */
  readonly customerKey: (customerId: string) => Promise<string>;
  /** From {@link createMediaClient}. */
  readonly client: MediaClient;
  readonly env?: NodeJS.ProcessEnv;
}

/** The media bucket's connection: bounded requests; path-style against a local server (`endpoint`). */
export function createMediaClient(options: MediaClient = {}): MediaClient {
  return options;
}

/**
 * The pipeline's media bucket (`MediaStore`) through the one module that talks to S3, signed
 * requests without the S3 client (which would add 180 KiB to every function that can see media).
 * Keys are `media/{customer pseudonym}/{message id}`: a retry of a message overwrites its own
 * object, and a customer's objects are one prefix for export and erasure.
 */
export class S3MediaStore implements MediaStore {
  private readonly send: SignedAwsPost;
  private readonly presign: PresignedAwsGet;

  constructor(private readonly options: S3MediaStoreOptions) {
    const env = options.env ?? process.env;
    const callOptions: AwsCallOptions = {
      env,
      endpoint: mediaBucketUrl(options.bucketName, options.client.endpoint, env.AWS_REGION),
      credentials: credentialProvider(options.client.credentials),
      timeouts: MEDIA_REQUEST_TIMEOUTS,
    };
    this.send = signedAwsPost(S3, callOptions);
    this.presign = presignedAwsGet(S3, callOptions);
  }

  async put(customerId: string, messageId: string, body: Uint8Array, contentType: string): Promise<StoredObject> {
    const objectKey = await this.messageKey(customerId, messageId);
    await this.call('store', () => this.send(objectPath(objectKey), { method: 'PUT', headers: { 'content-type': contentType }, body }));
    return { objectKey, sizeBytes: body.byteLength };
  }

  async destinationOf(customerId: string, messageId: string): Promise<MediaDestination> {
    return { bucketName: this.options.bucketName, keyPrefix: `${await this.messageKey(customerId, messageId)}/` };
  }

  async get(objectKey: string): Promise<Uint8Array> {
    const answer = await this.call('read', () => this.send(objectPath(objectKey), { method: 'GET', headers: {} }));
    return answer.payload;
  }

  async presignedGetUrl(objectKey: string, expiresInSeconds: number, response?: MediaLinkResponse): Promise<string> {
    // S3 answers a signed GET with these headers instead of the object's own.
    const overrides = response && {
      'response-content-disposition': response.contentDisposition,
      ...(response.contentType === undefined ? {} : { 'response-content-type': response.contentType }),
    };
    return this.presign(objectPath(objectKey), expiresInSeconds, overrides);
  }

  async listCustomerObjects(customerId: string): Promise<readonly StoredObject[]> {
    const prefix = await this.prefixOf(customerId);
    const objects: StoredObject[] = [];
    let continuationToken: string | undefined;
    do {
      const query = { 'list-type': '2', prefix, ...(continuationToken === undefined ? {} : { 'continuation-token': continuationToken }) };
      const answer = await this.call('list', () => this.send('/', { method: 'GET', query, headers: {} }));
      const page = this.read('list', answer.payload, readListing);
      objects.push(...page.objects);
      continuationToken = page.continuationToken;
    } while (continuationToken !== undefined);
    return objects;
  }

  async deleteCustomerObjects(customerId: string): Promise<number> {
    const objects = await this.listCustomerObjects(customerId);
    for (let start = 0; start < objects.length; start += DELETE_BATCH) {
      const batch = objects.slice(start, start + DELETE_BATCH);
      const body = new TextEncoder().encode(`<Delete><Quiet>true</Quiet>${batch.map(({ objectKey }) => `<Object><Key>${escapeXml(objectKey)}</Key></Object>`).join('')}</Delete>`);
      // DeleteObjects refuses a body without its digest.
      const headers = { 'content-type': 'application/xml', 'content-md5': createHash('md5').update(body).digest('base64') };
      const answer = await this.call('erase', () => this.send('/', { method: 'POST', query: { delete: '' }, headers, body }));
      const errors = this.read('erase', answer.payload, (result) => childrenOf(result, 'Error'));
      if (errors.length > 0) throw new MediaStoreError(`S3 refused to delete ${errors.length} of the customer's media objects (${childOf(errors[0], 'Code')?.text}); run the erasure again`, true);
    }
    return objects.length;
  }

  private async messageKey(customerId: string, messageId: string): Promise<string> {
    return `${await this.prefixOf(customerId)}${encodeURIComponent(messageId)}`;
  }

  private async prefixOf(customerId: string): Promise<string> {
    return `${MEDIA_DEFAULTS.keyPrefix}${await this.options.customerKey(customerId)}/`;
  }

  private async call<T>(what: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      // Access denied or a missing bucket is the deployment's to fix; anything else may pass.
      const permanent = error instanceof Error && (error.name === 'AccessDenied' || error.name === 'NoSuchBucket' || error.name === 'NoSuchKey');
      throw new MediaStoreError(`The media bucket could not ${what} (${error instanceof Error ? error.name : 'unknown error'})`, !permanent, { cause: error });
    }
  }

  /** An answer S3 cut short or garbled: worth another try. */
  private read<T>(what: string, payload: Uint8Array, reader: (root: XmlElement) => T): T {
    try {
      return reader(readXml(new TextDecoder().decode(payload)));
    } catch (error) {
      throw new MediaStoreError(`The media bucket could not ${what} (${error instanceof Error ? error.name : 'unknown error'})`, true, { cause: error });
    }
  }
}

/** One page of ListObjectsV2: the objects, and the token of the next page while `IsTruncated`. */
export function readListing(result: XmlElement): { readonly objects: readonly StoredObject[]; readonly continuationToken?: string } {
  if (result.name !== 'ListBucketResult') throw new XmlReadError(`Expected ListBucketResult, not ${result.name}`);
  const objects = childrenOf(result, 'Contents').map((entry) => {
    const objectKey = childOf(entry, 'Key')?.text;
    const size = childOf(entry, 'Size')?.text ?? '';
    if (objectKey === undefined || !/^\d+$/.test(size)) throw new XmlReadError('A listed object has no Key or no Size');
    return { objectKey, sizeBytes: Number(size) };
  });
  const truncated = childOf(result, 'IsTruncated')?.text;
  if (truncated !== 'true' && truncated !== 'false') throw new XmlReadError(`IsTruncated is ${truncated === undefined ? 'missing' : `"${truncated}"`}`);
  if (truncated === 'false') return { objects };
  const continuationToken = childOf(result, 'NextContinuationToken')?.text;
  if (!continuationToken) throw new XmlReadError('A truncated listing has no NextContinuationToken');
  return { objects, continuationToken };
}

/** `/{key}` with each segment escaped once, as S3 signs it (the signer leaves S3 paths alone). */
function objectPath(objectKey: string): string {
  return `/${objectKey.split('/').map(encodePathSegment).join('/')}`;
}
