import { displayableFileName } from './text-bounds';

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

/** Image types a browser shows as a picture and nothing more. An SVG is not one: it can carry script. */
const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * How the browser must answer a link to a stored attachment, whatever the customer said it is: a
 * safe image in place, served as exactly its type; anything else — an SVG, an HTML page, a PDF, a
 * file of no type — as a download under its name, so nothing a customer sent ever runs on the
 * bucket's origin when an operator opens it. (A player or an `<img>` reads the bytes either way.)
 */
export interface MediaLinkResponse {
  readonly contentDisposition: string;
  /** Set for an inline image: the type it is shown as. */
  readonly contentType?: string;
}

export function mediaLinkResponse(media: Pick<StoredMedia, 'kind' | 'mimeType' | 'filename'>): MediaLinkResponse {
  const type = mimeTypeEssence(media.mimeType ?? '');
  const name = displayableFileName(media.filename ?? '') || media.kind;
  // RFC 6266: a plain-ASCII name for old clients, the exact one in UTF-8 (RFC 8187) for the rest.
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const utf8 = encodeURIComponent(name).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
  if (INLINE_IMAGE_TYPES.has(type)) return { contentDisposition: `inline; filename="${ascii}"; filename*=UTF-8''${utf8}`, contentType: type };
  return { contentDisposition: `attachment; filename="${ascii}"; filename*=UTF-8''${utf8}` };
}
