// Types only: the call is made without the Bedrock Runtime client (see bedrockConverse).
import type { ContentBlock, DocumentFormat, ImageFormat } from '@aws-sdk/client-bedrock-runtime';
import { mimeTypeEssence, type StoredMedia } from '../../domain/media';
import type { AgentMediaStore, ConversationEntry } from '../../ports/agent';

/**
 * Converse's documented limits on attachments (the `Message` content of the Converse API): up to 20
 * images of at most 3.75 MB each and up to 5 documents of at most 4.5 MB each per request. Sizes
 * are read as decimal megabytes, the stricter reading.
 */
export const CONVERSE_MEDIA_LIMITS = { images: 20, imageBytes: 3_750_000, documents: 5, documentBytes: 4_500_000 } as const;

/** The image formats Converse reads, by MIME type. */
const IMAGE_FORMATS: Readonly<Record<string, ImageFormat>> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** The document formats Converse reads, by MIME type. */
const DOCUMENT_FORMATS: Readonly<Record<string, DocumentFormat>> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
};

/** Converse's longest document name. */
const DOCUMENT_NAME_MAX = 200;

/** How one stored attachment would go to Converse, or `undefined` when Converse cannot read it. */
type ConverseAttachment = { readonly type: 'image'; readonly format: ImageFormat } | { readonly type: 'document'; readonly format: DocumentFormat };

function converseAttachmentOf(media: StoredMedia): ConverseAttachment | undefined {
  if (media.state !== 'stored' || media.objectKey === undefined || media.kind === 'audio' || media.kind === 'video') return undefined;
  const mimeType = mimeTypeEssence(media.mimeType ?? '');
  const image = IMAGE_FORMATS[mimeType];
  if (image !== undefined && (media.sizeBytes ?? 0) <= CONVERSE_MEDIA_LIMITS.imageBytes) return { type: 'image', format: image };
  const document = DOCUMENT_FORMATS[mimeType];
  if (document !== undefined && media.kind === 'document' && (media.sizeBytes ?? 0) <= CONVERSE_MEDIA_LIMITS.documentBytes) return { type: 'document', format: document };
  return undefined;
}

/**
 * A document name Converse accepts: alphanumerics, single spaces, hyphens, parentheses and square
 * brackets, at most 200 characters. Accents are dropped from their letters (`ção` → `cao`);
 * anything else (dots, underscores, line breaks a customer put in a file name to steer the model)
 * becomes a space.
 */
export function converseDocumentName(filename: string | undefined): string {
  const name = (filename ?? '')
    .replace(/\.[A-Za-z0-9]{1,5}$/, '')
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^A-Za-z0-9\-()[\] ]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim()
    .slice(0, DOCUMENT_NAME_MAX)
    .trim();
  return name === '' ? 'document' : name;
}

/**
 * The image and document blocks of the history's attachments, newest first within Converse's
 * counts and sizes, each read from the bucket. An attachment left out (over the counts or sizes, a
 * format Converse does not read, or a read that failed) is described in text instead: the turn
 * goes on without it rather than failing on an attachment.
 */
export async function converseAttachmentBlocks(history: readonly ConversationEntry[], store: AgentMediaStore | undefined): Promise<ReadonlyMap<ConversationEntry, ContentBlock>> {
  if (store === undefined) return new Map();
  const left: Record<ConverseAttachment['type'], number> = { image: CONVERSE_MEDIA_LIMITS.images, document: CONVERSE_MEDIA_LIMITS.documents };
  const chosen: Array<{ entry: ConversationEntry; media: StoredMedia; attachment: ConverseAttachment }> = [];
  for (const entry of [...history].reverse()) {
    const attachment = entry.media && converseAttachmentOf(entry.media);
    if (!entry.media || !attachment || left[attachment.type] === 0) continue;
    left[attachment.type]--;
    chosen.push({ entry, media: entry.media, attachment });
  }
  const names = new Set<string>();
  const blocks = await Promise.all(
    chosen.reverse().map(async ({ entry, media, attachment }): Promise<[ConversationEntry, ContentBlock] | undefined> => {
      // Named before the read, in history order, so that the same history gets the same names.
      const name = attachment.type === 'document' ? uniqueName(converseDocumentName(media.filename), names) : '';
      const bytes = await store.get(media.objectKey!).catch(() => undefined);
      if (bytes === undefined) return undefined;
      if (attachment.type === 'image') {
        return bytes.byteLength <= CONVERSE_MEDIA_LIMITS.imageBytes ? [entry, { image: { format: attachment.format, source: { bytes } } }] : undefined;
      }
      return bytes.byteLength <= CONVERSE_MEDIA_LIMITS.documentBytes ? [entry, { document: { format: attachment.format, name, source: { bytes } } }] : undefined;
    }),
  );
  return new Map(blocks.filter((block) => block !== undefined));
}

/** Converse rejects a request whose documents share a name: a repeated one gets a number. */
function uniqueName(name: string, taken: Set<string>): string {
  let unique = name;
  for (let copy = 2; taken.has(unique); copy++) unique = `${name.slice(0, DOCUMENT_NAME_MAX - 5)} (${copy})`;
  taken.add(unique);
  return unique;
}
