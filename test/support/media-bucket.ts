import { createHash, randomInt } from 'node:crypto';
import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';

/**
 * The smallest valid PNG (one pixel): a browser decodes it, so the console's `<img>` gets a
 * natural width.
 */
export const ONE_PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** A one-page PDF as a customer's lab report would start. */
export const LAB_REPORT_PDF = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

/** The first bytes of an Ogg Opus stream, as WhatsApp records a voice note. */
export const VOICE_NOTE_OGG = Buffer.concat([Buffer.from('OggS\0\x02', 'latin1'), Buffer.alloc(22), Buffer.from('OpusHead\x01\x01', 'latin1'), Buffer.alloc(9)]);

/** Every object key in the pipeline's media bucket, read straight from the local S3 server (no SDK, no role). */
export async function mediaObjectKeys(pipeline: Pick<LocalPipeline, 'mediaBucketName' | 'endpoints'>): Promise<string[]> {
  if (pipeline.mediaBucketName === undefined) throw new Error('This pipeline runs without media');
  return bucketObjectKeys(pipeline.endpoints.s3, pipeline.mediaBucketName);
}

/** The keys under `prefix` (at most a listing page, 1000) of a bucket on the local S3 server at `s3Endpoint`. */
export async function bucketObjectKeys(s3Endpoint: string, bucketName: string, prefix = ''): Promise<string[]> {
  const response = await fetch(`${s3Endpoint}/${encodeURIComponent(bucketName)}?list-type=2&prefix=${encodeURIComponent(prefix)}`);
  const listing = await response.text();
  if (!response.ok) throw new Error(`Listing the media bucket failed: ${response.status} ${listing}`);
  return [...listing.matchAll(/<Key>([^<]*)<\/Key>/g)].map(([, key]) => key);
}

/**
 * A customer's attachment as Meta delivers it: `bytes` registered on the fake Graph API under a
 * fresh media id (`fileSize`: the size Meta reports instead of the true one), and the message of
 * that type naming it (`fields`: a caption, a filename). Answers
 * the message's `wamid.` id.
 */
export async function sendAttachment(
  pipeline: Pick<LocalPipeline, 'fakeWhatsApp' | 'sendCustomerContent'>,
  customer: string,
  attachment: { readonly type: 'image' | 'document' | 'audio'; readonly bytes: Buffer; readonly mimeType: string; readonly fields?: Record<string, string | boolean>; readonly fileSize?: number; readonly messageId?: string },
): Promise<string> {
  const { type, bytes, mimeType, fields = {}, fileSize, messageId } = attachment;
  const mediaId = `${Date.now()}${randomInt(1_000_000)}`;
  pipeline.fakeWhatsApp.registerMedia(mediaId, { bytes, mimeType, fileSize });
  const sha256 = createHash('sha256').update(bytes).digest('base64');
  const sent = await pipeline.sendCustomerContent(customer, { type, [type]: { id: mediaId, mime_type: mimeType, sha256, ...fields } }, messageId === undefined ? {} : { messageId });
  if (sent.status !== 200) throw new Error(`The webhook answered ${sent.status} to the ${type}`);
  return sent.messageId;
}

/** The texts the pipeline sent `customer`, in order. */
export function repliesTo(pipeline: Pick<LocalPipeline, 'fakeWhatsApp'>, customer: string): string[] {
  return pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer).map((message) => message.text);
}

/** The content blocks of the last user message of the newest model request whose text carries `marker`. */
export function lastTurnBlocks(requests: readonly ConverseCommandInput[], marker: string) {
  const request = [...requests].reverse().find((input) => JSON.stringify(input.messages?.at(-1)?.content?.filter((block) => block.text !== undefined)).includes(marker));
  if (request === undefined) throw new Error(`No model request carried "${marker}"`);
  return request.messages!.at(-1)!.content!;
}
