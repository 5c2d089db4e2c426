import { DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { AwsCredentials } from '../aws/aws-identity';
import { MEDIA_DEFAULTS } from '../../../../lib/contract';
import { MediaStoreError, type MediaStore, type StoredObject } from '../../ports/media-store';
import { clientConfigOf, type RequestTimeouts } from '../aws/request-timeouts';

/** A download waits for the bucket; a put of 16 MiB takes seconds, never a minute. */
const MEDIA_REQUEST_TIMEOUTS: RequestTimeouts = { connectionTimeoutMs: 3_000, requestTimeoutMs: 30_000, maxAttempts: 3 };

/** DeleteObjects takes at most this many keys. */
const DELETE_BATCH = 1_000;

export interface S3MediaStoreOptions {
  readonly bucketName: string;
  /**
   * What the keys call the customer: the audit's pseudonym (an HMAC of the id under the
   * deployment's salt), so no object key names a phone number and erasure finds every object from
   * the customer id alone.
   */
  readonly customerKey: (customerId: string) => Promise<string>;
  /** From {@link createMediaClient}. */
  readonly client: S3Client;
}

/** The S3 client of the media bucket: bounded requests; path-style against a local server (`endpoint`). */
export function createMediaClient(options: { readonly endpoint?: string; readonly credentials?: AwsCredentials } = {}): S3Client {
  return new S3Client({
    ...clientConfigOf(MEDIA_REQUEST_TIMEOUTS),
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint, forcePathStyle: true }),
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
  });
}

/**
 * The pipeline's media bucket (`MediaStore`) through the one module that talks to S3. Keys are
 * `media/{customer pseudonym}/{message id}`: a retry of a message overwrites its own object, and
 * a customer's objects are one prefix for export and erasure.
 */
export class S3MediaStore implements MediaStore {
  private readonly client: S3Client;

  constructor(private readonly options: S3MediaStoreOptions) {
    this.client = options.client;
  }

  async put(customerId: string, messageId: string, body: Uint8Array, contentType: string): Promise<StoredObject> {
    const objectKey = `${await this.prefixOf(customerId)}${encodeURIComponent(messageId)}`;
    await this.call('store', () => this.client.send(new PutObjectCommand({ Bucket: this.options.bucketName, Key: objectKey, Body: body, ContentType: contentType })));
    return { objectKey, sizeBytes: body.byteLength };
  }

  async get(objectKey: string): Promise<Uint8Array> {
    const answer = await this.call('read', () => this.client.send(new GetObjectCommand({ Bucket: this.options.bucketName, Key: objectKey })));
    if (answer.Body === undefined) throw new MediaStoreError(`The media object ${objectKey} has no body`, true);
    return answer.Body.transformToByteArray();
  }

  async presignedGetUrl(objectKey: string, expiresInSeconds: number): Promise<string> {
    // Imported when asked: the orchestrator's turns never presign, so its bundle does not load the signer.
    const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.options.bucketName, Key: objectKey }), { expiresIn: expiresInSeconds });
  }

  async listCustomerObjects(customerId: string): Promise<readonly StoredObject[]> {
    const prefix = await this.prefixOf(customerId);
    const objects: StoredObject[] = [];
    let continuationToken: string | undefined;
    do {
      const page = await this.call('list', () => this.client.send(new ListObjectsV2Command({ Bucket: this.options.bucketName, Prefix: prefix, ContinuationToken: continuationToken })));
      for (const entry of page.Contents ?? []) if (entry.Key !== undefined) objects.push({ objectKey: entry.Key, sizeBytes: entry.Size ?? 0 });
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken !== undefined);
    return objects;
  }

  async deleteCustomerObjects(customerId: string): Promise<number> {
    const objects = await this.listCustomerObjects(customerId);
    for (let start = 0; start < objects.length; start += DELETE_BATCH) {
      const batch = objects.slice(start, start + DELETE_BATCH);
      const answer = await this.call('erase', () => this.client.send(new DeleteObjectsCommand({ Bucket: this.options.bucketName, Delete: { Objects: batch.map(({ objectKey }) => ({ Key: objectKey })), Quiet: true } })));
      if ((answer.Errors ?? []).length > 0) throw new MediaStoreError(`S3 refused to delete ${answer.Errors!.length} of the customer's media objects (${answer.Errors![0].Code}); run the erasure again`, true);
    }
    return objects.length;
  }

  private async prefixOf(customerId: string): Promise<string> {
    return `${MEDIA_DEFAULTS.keyPrefix}${await this.options.customerKey(customerId)}/`;
  }

  private async call<T>(what: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      // Access denied or a missing bucket is the deployment's to fix; anything else may pass.
      const permanent = error instanceof S3ServiceException && (error.name === 'AccessDenied' || error.name === 'NoSuchBucket' || error.name === 'NoSuchKey');
      throw new MediaStoreError(`The media bucket could not ${what} (${error instanceof Error ? error.name : 'unknown error'})`, !permanent, { cause: error });
    }
  }
}
