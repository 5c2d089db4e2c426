import { WHATSAPP_CHANNEL_KINDS } from '../../../../lib/contract';
import type { MediaSource } from '../../ports/media-source';
import { GraphApiMediaSource } from './graph-api-media-source';
import { type SenderCompositionOptions, type WhatsAppChannelConfig, whatsAppSecretReader } from './whatsapp-channel';

// Apart from the senders in whatsapp-channel.ts: only the media composition imports this module,
// so the media sources are in the functions' media file, not in every function's handler.

/**
 * Where a customer's attachments are downloaded from: the Graph API's media endpoints on the
 * Cloud API; `undefined` on End User Messaging, whose attachments stay their placeholder text.
 */
export function createMediaSource(channel: WhatsAppChannelConfig, options: SenderCompositionOptions = {}): MediaSource | undefined {
  if (channel.kind !== WHATSAPP_CHANNEL_KINDS.cloudApi) return undefined;
  return new GraphApiMediaSource({ baseUrl: channel.apiBaseUrl, credentials: options.credentials ?? whatsAppSecretReader(channel.whatsAppSecretArn, options) });
}
