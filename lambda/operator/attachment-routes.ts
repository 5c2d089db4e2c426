import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { OperatorReplies } from '../core/application/operator/operator-replies';
import type { MediaLimits } from '../core/domain/media-limits';
import { MAX_OUTBOUND_ATTACHMENT_BYTES, type OutboundAttachment, outboundAttachmentOf } from '../core/domain/outbound-attachment';
import { isDisplayableFileName } from '../core/domain/text-bounds';
import { header, HttpError } from './http-kit';
import { created, route, type Route, signedInOf } from './router';

/** The header naming the file (URL-encoded), which a document shows the customer. */
export const FILE_NAME_HEADER = 'x-file-name';
const MAX_FILE_NAME_CHARS = 240;
/** No path: a name, as the customer's phone shows it (and no character that reorders or hides it, `isDisplayableFileName`). */
const FILE_NAME = /^[^/\\]+$/;

/**
 * An operator sends an image or a document (docs/OPERATOR-API.md#attachments): the body is the
 * file itself, its `content-type` the file's type. Everything is checked before anything is read or
 * written: a refused file leaves neither an object nor a history entry.
 */
export function attachmentRoutes(replies: Pick<OperatorReplies, 'sendAttachment'>, limits: MediaLimits): Route[] {
  return [
    route('POST conversations/:customerId/attachments', 'operator', async (context) => {
      const attachment = attachmentOf(context.event, limits);
      return created({ message: await replies.sendAttachment(signedInOf(context).operator, context.params.customerId, attachment) });
    }),
  ];
}

function attachmentOf(event: APIGatewayProxyEventV2, limits: MediaLimits): OutboundAttachment {
  // A function URL passes a binary body base64-encoded; past the cap it never decodes the rest.
  const encoded = event.body ?? '';
  if (encoded.length > Math.ceil((MAX_OUTBOUND_ATTACHMENT_BYTES * 4) / 3) + 4) tooLarge(Math.min(limits.maxBytes, MAX_OUTBOUND_ATTACHMENT_BYTES));
  const bytes = Buffer.from(encoded, event.isBase64Encoded ? 'base64' : 'utf8');
  if (bytes.byteLength === 0) throw new HttpError('bad_body', 'Send the file as the body', {}, { code: 'attachment_missing' });
  const file = outboundAttachmentOf(limits, { mimeType: header(event, 'content-type') ?? '', bytes, ...fileNameOf(event) });
  if (!('refusal' in file)) return file;
  switch (file.refusal) {
    case 'too_large':
      return tooLarge(file.maxBytes);
    case 'type_not_allowed':
      throw new HttpError('unsupported_media_type', `Send an image or a document of one of these types: ${file.types}`, {}, { code: 'attachment_type_not_allowed', types: file.types });
    case 'not_of_its_type':
      throw new HttpError('unsupported_media_type', 'The body is not a file of the type its content-type says', {}, { code: 'attachment_not_of_its_type' });
  }
}

function tooLarge(maxBytes: number): never {
  throw new HttpError('payload_too_large', `The file may be at most ${maxBytes} bytes`, {}, { code: 'attachment_too_large', maxBytes });
}

function fileNameOf(event: APIGatewayProxyEventV2): { readonly fileName?: string } {
  const raw = header(event, FILE_NAME_HEADER);
  if (raw === undefined || raw === '') return {};
  let fileName: string;
  try {
    fileName = decodeURIComponent(raw).trim();
  } catch {
    fileName = '';
  }
  if (fileName.length === 0 || fileName.length > MAX_FILE_NAME_CHARS || !FILE_NAME.test(fileName) || !isDisplayableFileName(fileName)) {
    throw new HttpError('bad_field', `The ${FILE_NAME_HEADER} header must be a file name (URL-encoded, at most ${MAX_FILE_NAME_CHARS} characters, no path, no control or bidirectional characters)`, {}, { code: 'attachment_file_name', field: FILE_NAME_HEADER });
  }
  return { fileName };
}
