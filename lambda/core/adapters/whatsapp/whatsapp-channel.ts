import { WHATSAPP_CHANNEL_KINDS } from '../../../../lib/contract';
import type { WhatsAppCredentialsProvider } from '../../ports/credentials';
import type { MediaStore } from '../../ports/media-store';
import type { WhatsAppSender } from '../../ports/whatsapp-sender';
import type { AwsCredentials } from '../aws/aws-identity';
import { credentialProvider } from '../aws/aws-identity';
import { SecretsManagerCredentialsProvider } from '../secrets/secrets-manager-credentials';
import { EndUserMessagingWhatsAppSender, endUserMessagingPostMedia, endUserMessagingSend } from './end-user-messaging-sender';
import { GraphApiWhatsAppSender } from './graph-api-sender';
import { EndUserMessagingTemplateCatalog } from './end-user-messaging-template-catalog';
import { GraphApiTemplateCatalog } from './graph-api-template-catalog';
import type { TemplateCatalog } from '../../ports/template-catalog';

/** Meta's Cloud API: the Graph API with the access token of the WhatsApp secret. */
export interface CloudApiChannel {
  readonly kind: typeof WHATSAPP_CHANNEL_KINDS.cloudApi;
  readonly whatsAppSecretArn: string;
  readonly apiBaseUrl: string;
  /** Meta's numeric WhatsApp Business Account id, whose templates are synced; absent: no template sync. */
  readonly businessAccountId?: string;
}

/** AWS End User Messaging Social: `SendWhatsAppMessage` with the function's IAM role. */
export interface EndUserMessagingChannel {
  readonly kind: typeof WHATSAPP_CHANNEL_KINDS.endUserMessaging;
  /** Meta phone number id → End User Messaging phone number id (`phone-number-id-…`). */
  readonly phoneNumbers: ReadonlyMap<string, string>;
  readonly metaApiVersion: string;
  /** The linked account's id (`waba-…`), whose templates are synced; absent: no template sync. */
  readonly businessAccountId?: string;
}

/** Where replies go out: the one decision that differs between the channels on the sending side. */
export type WhatsAppChannelConfig = CloudApiChannel | EndUserMessagingChannel;

export interface SenderCompositionOptions extends AwsCallPorts {
  /** The WhatsApp secret's values instead of reading the channel's secret from Secrets Manager (tests, the local runtime). */
  readonly credentials?: WhatsAppCredentialsProvider;
  /** End User Messaging endpoint to call instead of the SDK's (the local fake). */
  readonly endUserMessagingEndpoint?: string;
  /** The media bucket an operator's attachments are sent from. Default: none, and a media send is refused. */
  readonly outboundMedia?: { readonly store: Pick<MediaStore, 'get'>; readonly bucketName?: string };
}

/** Who a function's AWS calls are signed as, and where its Secrets Manager calls go. */
export interface AwsCallPorts {
  /** The identity every AWS call of the function signs with. Default: the SDK's default chain (in Lambda, the function's role). */
  readonly awsCredentials?: AwsCredentials;
  /** Secrets Manager endpoint to call instead of the SDK's (a local fake). */
  readonly secretsManagerEndpoint?: string;
}

/** The sender of the configured channel: chosen here, in the composition, never in a use case. */
export function createWhatsAppSender(channel: WhatsAppChannelConfig, options: SenderCompositionOptions = {}): WhatsAppSender {
  if (channel.kind === WHATSAPP_CHANNEL_KINDS.cloudApi) {
    return new GraphApiWhatsAppSender({
      baseUrl: channel.apiBaseUrl,
      credentials: options.credentials ?? whatsAppSecretReader(channel.whatsAppSecretArn, options),
      media: options.outboundMedia?.store,
    });
  }
  const aws = { endpoint: options.endUserMessagingEndpoint, credentials: credentialProvider(options.awsCredentials) };
  return new EndUserMessagingWhatsAppSender({
    send: endUserMessagingSend(aws),
    postMedia: endUserMessagingPostMedia(aws),
    mediaBucketName: options.outboundMedia?.bucketName,
    phoneNumbers: channel.phoneNumbers,
    metaApiVersion: channel.metaApiVersion,
  });
}

/** Where the channel's account templates are read; `undefined` without a business account id. */
export function createTemplateCatalog(channel: WhatsAppChannelConfig, options: SenderCompositionOptions = {}): TemplateCatalog | undefined {
  if (channel.businessAccountId === undefined) return undefined;
  if (channel.kind === WHATSAPP_CHANNEL_KINDS.cloudApi) {
    return new GraphApiTemplateCatalog({
      baseUrl: channel.apiBaseUrl,
      credentials: options.credentials ?? whatsAppSecretReader(channel.whatsAppSecretArn, options),
      businessAccountId: channel.businessAccountId,
    });
  }
  return new EndUserMessagingTemplateCatalog({
    businessAccountId: channel.businessAccountId,
    aws: { endpoint: options.endUserMessagingEndpoint, credentials: credentialProvider(options.awsCredentials) },
  });
}

/** The WhatsApp secret read from Secrets Manager with the function's identity. */
export function whatsAppSecretReader(secretArn: string, ports: AwsCallPorts): SecretsManagerCredentialsProvider {
  return new SecretsManagerCredentialsProvider({ secretId: secretArn, access: { credentials: ports.awsCredentials, endpoint: ports.secretsManagerEndpoint } });
}
