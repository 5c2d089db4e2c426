import { type MediaRefusal, mimeTypeEssence, type StoredMedia } from './media';

/** What a deployment keeps (`media.maxBytes`, `media.allowedMimeTypes`). */
export interface MediaLimits {
  readonly maxBytes: number;
  /** Exact types (`application/pdf`) or families (`image/*`). */
  readonly allowedMimeTypes: readonly string[];
}

/** Whether `mimeType` (parameters such as `; codecs=opus` ignored) is one the limits keep. */
export function isMimeTypeAllowed(limits: MediaLimits, mimeType: string): boolean {
  const type = mimeTypeEssence(mimeType);
  const family = `${type.split('/')[0]}/*`;
  return limits.allowedMimeTypes.some((allowed) => allowed === type || allowed === family);
}

/** Why an attachment of this type and size is kept out, or undefined when it may be stored. */
export function refusalOf(limits: MediaLimits, mimeType: string, sizeBytes: number | undefined): MediaRefusal | undefined {
  if (!isMimeTypeAllowed(limits, mimeType)) return 'type_not_allowed';
  if (sizeBytes !== undefined && sizeBytes > limits.maxBytes) return 'too_large';
  return undefined;
}

const REFUSAL_NOTES: Record<MediaRefusal, string> = {
  too_large: 'the file is larger than this service accepts',
  type_not_allowed: 'this type of file is not accepted',
  download_failed: 'the file could not be downloaded',
};

/**
 * The text a message keeps when its attachment was not stored: the customer's text (or the
 * placeholder) and a note the agent reads, so it can say what happened instead of guessing.
 */
export function textWithMediaNote(text: string, media: StoredMedia): string {
  if (media.state !== 'refused' && media.state !== 'failed') return text;
  const refusal = media.refusal ?? 'download_failed';
  return `${text}\n[${media.kind} not kept: ${REFUSAL_NOTES[refusal]}]`;
}
