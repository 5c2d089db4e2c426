import { WHATSAPP_CHANNEL_KINDS } from '../../../../lib/contract';
import type { MediaSource, MediaTransferSource } from '../../ports/media-source';
import { credentialProvider } from '../aws/aws-identity';
import { EndUserMessagingMediaSource, endUserMessagingGetMedia } from './end-user-messaging-media-source';
import { GraphApiMediaSource } from './graph-api-media-source';
import { type SenderCompositionOptions, type WhatsAppChannelConfig, whatsAppSecretReader } from './whatsapp-channel';

// Apart from the senders in whatsapp-channel.ts: only the media composition imports this module,
// so the media sources are in the functions' media file, not in every function's handler.

/**
 * Where a customer's attachments are downloaded from: the Graph API's media endpoints on the
 * Cloud API; End User Messaging's `GetWhatsAppMessageMedia`, which writes them into the bucket.
 */
export function createMediaSource(channel: WhatsAppChannelConfig, options: SenderCompositionOptions = {}): MediaSource | MediaTransferSource {
  if (channel.kind === WHATSAPP_CHANNEL_KINDS.cloudApi) {
    return new GraphApiMediaSource({ baseUrl: channel.apiBaseUrl, credentials: options.credentials ?? whatsAppSecretReader(channel.whatsAppSecretArn, options) });
  }
  return new EndUserMessagingMediaSource({
    getMedia: endUserMessagingGetMedia({ endpoint: options.endUserMessagingEndpoint, credentials: credentialProvider(options.awsCredentials) }),
    phoneNumbers: channel.phoneNumbers,
  });
}
