import { PipelineError } from '../domain/errors';
import type { MediaLinkResponse } from '../domain/media';

/** One object in the pipeline's media bucket. */
export interface StoredObject {
  readonly objectKey: string;
  readonly sizeBytes: number;
}

/** Where a provider that writes into the bucket itself puts one message's attachment. */
export interface MediaDestination {
  readonly bucketName: string;
  /** The key prefix of the customer's message; the provider names the object under it. */
  readonly keyPrefix: string;
}

/**
 * The pipeline's media bucket. Object keys are the adapter's business: they are derived from the
 * customer so that erasure and export find every object of a customer without a live session.
 */
export interface MediaStore {
  /** Stores one attachment of `customerId`'s message `messageId`; a retry overwrites the same key. */
  put(customerId: string, messageId: string, body: Uint8Array, contentType: string): Promise<StoredObject>;
  /** Where a provider writes `customerId`'s message `messageId` itself: under the same customer prefix as {@link put}. */
  destinationOf(customerId: string, messageId: string): Promise<MediaDestination>;
  /** The bytes of a stored object. Throws {@link MediaStoreError}. */
  get(objectKey: string): Promise<Uint8Array>;
  /**
   * A short-lived URL that reads one object, for an authorised operator or the agent function;
   * with `response`, the store answers it with that disposition and type (signed into the URL).
   */
  presignedGetUrl(objectKey: string, expiresInSeconds: number, response?: MediaLinkResponse): Promise<string>;
  /** Every object of a customer (export). */
  listCustomerObjects(customerId: string): Promise<readonly StoredObject[]>;
  /** Deletes every object of a customer (erasure); returns how many were deleted. */
  deleteCustomerObjects(customerId: string): Promise<number>;
}

/** The bucket could not be read or written; `retryable` says whether trying again can help. */
export class MediaStoreError extends PipelineError {
  override readonly name = 'MediaStoreError';
  override readonly code = 'media_store_failed';

  constructor(
    message: string,
    override readonly retryable: boolean,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
  }
}
