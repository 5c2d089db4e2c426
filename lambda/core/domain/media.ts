/** The kinds of attachment a customer can send; each is stored as one object. */
export type MediaKind = 'image' | 'video' | 'audio' | 'document' | 'sticker';

export const MEDIA_KINDS: readonly MediaKind[] = ['image', 'video', 'audio', 'document', 'sticker'];

/** A MIME type without its parameters, lower case (`Audio/OGG; codecs=opus` → `audio/ogg`): what every format table is keyed by. */
export function mimeTypeEssence(mimeType: string): string {
  return mimeType.split(';')[0].trim().toLowerCase();
}

/**
 * What the provider says of an attachment a customer sent (never its bytes): the inbound path
 * records this and nothing more, so registration stays as fast as a text message.
 */
export interface InboundMedia {
  readonly kind: MediaKind;
  /** The provider's media id: the Cloud API's `{type}.id`, or End User Messaging's media id. */
  readonly providerMediaId: string;
  readonly mimeType?: string;
  /** Meta's SHA-256 of the file, when it sends one. */
  readonly sha256?: string;
  readonly filename?: string;
  readonly caption?: string;
  /** Recorded in WhatsApp as a voice note (not an audio file shared). */
  readonly voice?: boolean;
}

/**
 * Where an attachment is on its way into the pipeline's bucket:
 * - `pending`: registered, not yet downloaded;
 * - `stored`: in the bucket at `objectKey`;
 * - `refused`: kept out on purpose (`refusal` says why); the message continues as text with a note;
 * - `failed`: every download attempt failed; the message continues as text with a note.
 */
export type MediaState = 'pending' | 'stored' | 'refused' | 'failed';

export type MediaRefusal = 'too_large' | 'type_not_allowed' | 'download_failed';

/** An attachment as the history keeps it: what the provider said, plus where it is stored. */
export interface StoredMedia extends Omit<InboundMedia, 'providerMediaId'> {
  /** The provider's id of a customer's attachment; absent on one an operator sent (uploaded at each send). */
  readonly providerMediaId?: string;
  readonly state: MediaState;
  readonly objectKey?: string;
  readonly sizeBytes?: number;
  readonly refusal?: MediaRefusal;
  /** A voice note's transcript, when transcription is on: what the agent and the history read. */
  readonly transcript?: string;
}
