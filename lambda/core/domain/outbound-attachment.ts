import { mimeTypeEssence } from './media';
import { isMimeTypeAllowed, type MediaLimits } from './media-limits';

/**
 * What WhatsApp takes as an image or a document message that an operator sends (among Meta's
 * supported media types), and how each file of the type begins: a body that does not is not one.
 */
const SENDABLE_TYPES: Readonly<Record<string, { readonly kind: 'image' | 'document'; readonly signature: readonly number[] }>> = {
  'image/jpeg': { kind: 'image', signature: [0xff, 0xd8, 0xff] },
  'image/png': { kind: 'image', signature: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  'application/pdf': { kind: 'document', signature: [0x25, 0x50, 0x44, 0x46, 0x2d] },
};

/**
 * The largest file an operator sends through the operator API: a Lambda function URL takes at most
 * 6 MB of request payload, and a binary body arrives base64-encoded (4/3 larger) with the headers.
 */
export const MAX_OUTBOUND_ATTACHMENT_BYTES = 4 * 1024 * 1024;

/** An image or a document an operator sends, as received. */
export interface OutboundAttachment {
  readonly kind: 'image' | 'document';
  readonly mimeType: string;
  readonly bytes: Uint8Array;
  /** The name the customer sees under a document. */
  readonly fileName?: string;
}

/**
 * Why an operator's file is not sent: not a type both WhatsApp and the deployment take (`types`),
 * larger than `maxBytes`, or bytes that are not a file of the type it says.
 */
export type OutboundAttachmentRefusal =
  | { readonly refusal: 'type_not_allowed'; readonly types: string }
  | { readonly refusal: 'too_large'; readonly maxBytes: number }
  | { readonly refusal: 'not_of_its_type' };

/** The attachment to send, or why the file is refused. */
export function outboundAttachmentOf(limits: MediaLimits, file: Omit<OutboundAttachment, 'kind'>): OutboundAttachment | OutboundAttachmentRefusal {
  const mimeType = mimeTypeEssence(file.mimeType);
  const sendable = Object.hasOwn(SENDABLE_TYPES, mimeType) ? SENDABLE_TYPES[mimeType] : undefined;
  if (sendable === undefined || !isMimeTypeAllowed(limits, mimeType)) {
    return { refusal: 'type_not_allowed', types: Object.keys(SENDABLE_TYPES).filter((candidate) => isMimeTypeAllowed(limits, candidate)).join(', ') };
  }
  const maxBytes = Math.min(limits.maxBytes, MAX_OUTBOUND_ATTACHMENT_BYTES);
  if (file.bytes.byteLength > maxBytes) return { refusal: 'too_large', maxBytes };
  if (!sendable.signature.every((byte, index) => file.bytes[index] === byte)) return { refusal: 'not_of_its_type' };
  return { ...file, kind: sendable.kind, mimeType };
}

/** What the history (and so the agent) reads of an attachment an operator sent: the placeholder an inbound one has. */
export function outboundAttachmentText(attachment: Pick<OutboundAttachment, 'kind' | 'fileName'>): string {
  return attachment.fileName === undefined ? `[${attachment.kind}]` : `[${attachment.kind}] ${attachment.fileName}`;
}
