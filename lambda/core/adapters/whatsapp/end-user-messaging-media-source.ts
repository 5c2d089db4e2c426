import type { InboundMedia } from '../../domain/media';
import type { MediaDestination, StoredObject } from '../../ports/media-store';
import { type MediaMetadata, MediaSourceError, type MediaTransferSource } from '../../ports/media-source';
import { type AwsCallOptions, signedAwsPost } from '../aws/signed-aws-post';
import { SOCIAL_MESSAGING } from './end-user-messaging-sender';
import { classifyEndUserMessagingError, endUserMessagingFailureOf } from './end-user-messaging-errors';

/** The request of `GetWhatsAppMessageMedia` (the API's names). */
export interface GetWhatsAppMessageMediaInput {
  readonly mediaId: string;
  readonly originationPhoneNumberId: string;
  readonly metadataOnly?: boolean;
  readonly destinationS3File?: { readonly bucketName: string; readonly key: string };
}

/** Its answer: the file's type, and its size in KB. */
export interface GetWhatsAppMessageMediaOutput {
  readonly mimeType?: string;
  readonly fileSize?: number;
}

/** One `GetWhatsAppMessageMedia`; rejects with the service's error (`name`, `$metadata.httpStatusCode`, `$fault`) or a transport error. */
export type GetWhatsAppMessageMedia = (input: GetWhatsAppMessageMediaInput) => Promise<GetWhatsAppMessageMediaOutput>;

/**
 * `GetWhatsAppMessageMedia` as one signed `POST /v1/whatsapp/media/get`. Retried as the SDK
 * retries it: asking for the metadata again, or writing the same object again, changes nothing.
 */
export function endUserMessagingGetMedia(options: AwsCallOptions = {}): GetWhatsAppMessageMedia {
  const post = signedAwsPost(SOCIAL_MESSAGING, options);
  return async (input) => {
    const answer = await post('/v1/whatsapp/media/get', { headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(JSON.stringify(input)) });
    return JSON.parse(new TextDecoder().decode(answer.payload)) as GetWhatsAppMessageMediaOutput;
  };
}

export interface EndUserMessagingMediaSourceOptions {
  /** Default: {@link endUserMessagingGetMedia} with the environment's region and credentials. */
  readonly getMedia?: GetWhatsAppMessageMedia;
  /** Meta phone number id (what the turns carry) → End User Messaging id. */
  readonly phoneNumbers: ReadonlyMap<string, string>;
}

/**
 * A customer's attachment through AWS End User Messaging Social (`GetWhatsAppMessageMedia`,
 * IAM-signed, no Meta token), asked of the linked number that received it: first its metadata
 * alone, so the limits are checked before any byte moves, then the service writes it into the
 * media bucket itself. The service names the object by appending the media id to the key it is
 * given, so the object lands under the message's own prefix and a retry rewrites the same object.
 */
export class EndUserMessagingMediaSource implements MediaTransferSource {
  private readonly getMedia: GetWhatsAppMessageMedia;

  constructor(private readonly options: EndUserMessagingMediaSourceOptions) {
    this.getMedia = options.getMedia ?? endUserMessagingGetMedia();
  }

  async describe(media: InboundMedia, businessPhoneNumberId: string): Promise<MediaMetadata> {
    const { mimeType, sizeBytes } = await this.call(media, businessPhoneNumberId, { metadataOnly: true });
    return { mimeType, ...(sizeBytes === undefined ? {} : { sizeBytes }) };
  }

  async transferInto(media: InboundMedia, businessPhoneNumberId: string, destination: MediaDestination): Promise<StoredObject> {
    const { sizeBytes } = await this.call(media, businessPhoneNumberId, { destinationS3File: { bucketName: destination.bucketName, key: destination.keyPrefix } });
    if (sizeBytes === undefined) throw new MediaSourceError('End User Messaging answered the media transfer without a fileSize', true);
    return { objectKey: `${destination.keyPrefix}${media.providerMediaId}`, sizeBytes };
  }

  private async call(media: InboundMedia, businessPhoneNumberId: string, request: Pick<GetWhatsAppMessageMediaInput, 'metadataOnly' | 'destinationS3File'>): Promise<{ mimeType: string; sizeBytes?: number }> {
    const originationPhoneNumberId = this.options.phoneNumbers.get(businessPhoneNumberId);
    // Only a number the construct was given can be asked: anything else would be refused by IAM anyway.
    if (originationPhoneNumberId === undefined) throw new MediaSourceError('The business phone number is not one of the linked End User Messaging numbers', false);
    let answer: GetWhatsAppMessageMediaOutput;
    try {
      answer = await this.getMedia({ mediaId: media.providerMediaId, originationPhoneNumberId, ...request });
    } catch (error) {
      throw mediaError(error);
    }
    if (typeof answer.mimeType !== 'string') throw new MediaSourceError('End User Messaging answered the media without a mimeType', true);
    return { mimeType: answer.mimeType, ...(typeof answer.fileSize === 'number' ? { sizeBytes: answer.fileSize * BYTES_PER_KB } : {}) };
  }
}

/** The service reports `fileSize` in KB. */
const BYTES_PER_KB = 1024;

/** The sender's outcome table (end-user-messaging-errors.ts); no answer at all is worth another attempt. */
function mediaError(error: unknown): MediaSourceError {
  const { name, message, httpStatus, fault } = endUserMessagingFailureOf(error);
  if (httpStatus === undefined) return new MediaSourceError(`The End User Messaging media request failed without an answer (${name})`, true, { cause: error });
  const { retryable } = classifyEndUserMessagingError(name, message, fault);
  return new MediaSourceError(`End User Messaging refused the media request: ${name} (HTTP ${httpStatus})`, retryable, { cause: error });
}
