import { PipelineError } from '../domain/errors';
import type { InboundMedia } from '../domain/media';

/** What the provider says of an attachment before any byte of it is fetched. */
export interface MediaDescription {
  readonly mimeType: string;
  /** The size the provider reports, when it reports one. */
  readonly sizeBytes?: number;
  readonly sha256?: string;
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
