import { PipelineError } from '../domain/errors';
import type { InboundMedia } from '../domain/media';
import type { MediaDestination, StoredObject } from './media-store';

/** What the provider says of an attachment before any byte of it is moved. */
export interface MediaMetadata {
  readonly mimeType: string;
  /** The size the provider reports, when it reports one. */
  readonly sizeBytes?: number;
  readonly sha256?: string;
}

/** The metadata of an attachment whose bytes the pipeline fetches itself. */
export interface MediaDescription extends MediaMetadata {
  /** Where the bytes are (the Cloud API's short-lived URL). */
  readonly url: string;
}

/** Where a customer's attachment is fetched from: the Cloud API's media endpoints. */
export interface MediaSource {
  /** The attachment's type, size and short-lived URL. Throws {@link MediaSourceError}. */
  describe(media: InboundMedia): Promise<MediaDescription>;
  /** The bytes at `description.url`; never more than `maxBytes` are read. Throws {@link MediaSourceError}. */
  fetch(description: MediaDescription, maxBytes: number): Promise<Uint8Array>;
}

/**
 * A provider that writes a customer's attachment into the media bucket itself (End User
 * Messaging's `GetWhatsAppMessageMedia`): no byte passes through the function.
 */
export interface MediaTransferSource {
  /** The attachment's type and size, asked of the number that received it. Throws {@link MediaSourceError}. */
  describe(media: InboundMedia, businessPhoneNumberId: string): Promise<MediaMetadata>;
  /** Writes the attachment under `destination`; answers the object written. Throws {@link MediaSourceError}. */
  transferInto(media: InboundMedia, businessPhoneNumberId: string, destination: MediaDestination): Promise<StoredObject>;
}

/** Whether `source` moves the bytes into the bucket itself rather than answering them. */
export function isTransferSource(source: MediaSource | MediaTransferSource): source is MediaTransferSource {
  return 'transferInto' in source;
}

/** The provider could not describe or deliver an attachment; `retryable` says whether a later attempt can help. */
export class MediaSourceError extends PipelineError {
  override readonly name = 'MediaSourceError';
  override readonly code = 'media_source_failed';

  constructor(
    message: string,
    override readonly retryable: boolean,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The bytes turned out larger than the limit while they were read (the provider's size was absent or wrong). */
export class MediaTooLargeError extends PipelineError {
  override readonly name = 'MediaTooLargeError';
  override readonly code = 'media_too_large';
  override readonly retryable = false;

  constructor(readonly maxBytes: number) {
    super(`The attachment is larger than ${maxBytes} bytes`);
  }
}
