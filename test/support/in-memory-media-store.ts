import type { MediaLinkResponse } from '../../lambda/core/domain/media';
import { type MediaDestination, MediaStoreError, type MediaStore, type StoredObject } from '../../lambda/core/ports/media-store';

/**
 * A media bucket in memory, for the tests of what reads and writes attachments: objects by key,
 * keys derived from the customer as the bucket's adapter derives them, and a record of every
 * presigned URL asked for. `failing` makes every read fail (retryable).
 */
export class InMemoryMediaStore implements MediaStore {
  readonly objects = new Map<string, { readonly body: Uint8Array; readonly contentType: string }>();
  readonly presigned: Array<{ readonly objectKey: string; readonly expiresInSeconds: number; readonly response?: MediaLinkResponse }> = [];
  failing = false;

  constructor(private readonly baseUrl = 'http://127.0.0.1:9/media') {}

  async put(customerId: string, messageId: string, body: Uint8Array, contentType: string): Promise<StoredObject> {
    this.refuseWhenFailing();
    const objectKey = messageKey(customerId, messageId);
    this.objects.set(objectKey, { body: new Uint8Array(body), contentType });
    return { objectKey, sizeBytes: body.byteLength };
  }

  async destinationOf(customerId: string, messageId: string): Promise<MediaDestination> {
    return { bucketName: 'in-memory', keyPrefix: `${messageKey(customerId, messageId)}/` };
  }

  /** Puts an object under a key of the test's choosing. */
  seed(objectKey: string, body: Uint8Array, contentType = 'application/octet-stream'): void {
    this.objects.set(objectKey, { body, contentType });
  }

  async get(objectKey: string): Promise<Uint8Array> {
    this.refuseWhenFailing();
    const object = this.objects.get(objectKey);
    if (!object) throw new MediaStoreError(`No object ${objectKey}`, false);
    return object.body;
  }

  async presignedGetUrl(objectKey: string, expiresInSeconds: number, response?: MediaLinkResponse): Promise<string> {
    this.refuseWhenFailing();
    this.presigned.push({ objectKey, expiresInSeconds, ...(response && { response }) });
    return `${this.baseUrl}/${objectKey}?expires=${expiresInSeconds}`;
  }

  async listCustomerObjects(customerId: string): Promise<readonly StoredObject[]> {
    const prefix = `media/${encodeURIComponent(customerId)}/`;
    return [...this.objects].filter(([key]) => key.startsWith(prefix)).map(([objectKey, { body }]) => ({ objectKey, sizeBytes: body.byteLength }));
  }

  async deleteCustomerObjects(customerId: string): Promise<number> {
    const listed = await this.listCustomerObjects(customerId);
    for (const { objectKey } of listed) this.objects.delete(objectKey);
    return listed.length;
  }

  private refuseWhenFailing(): void {
    if (this.failing) throw new MediaStoreError('The bucket is unavailable', true);
  }
}

function messageKey(customerId: string, messageId: string): string {
  return `media/${encodeURIComponent(customerId)}/${encodeURIComponent(messageId)}`;
}
