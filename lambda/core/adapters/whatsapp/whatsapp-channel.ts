import { PIPELINE_DEFAULTS, RUNTIME_ENV, WHATSAPP_CHANNEL_KINDS } from '../../../../lib/contract';
import { isValidBusinessPhoneNumberId } from '../../domain/inbound-admission';
import type { WhatsAppSender } from '../../ports/whatsapp-sender';
import { requiredVariable, RuntimeConfigError } from '../runtime-environment';
import { SecretsManagerCredentialsProvider } from '../secrets/secrets-manager-credentials';
import { EndUserMessagingWhatsAppSender, endUserMessagingSend, isOriginationPhoneNumberId } from './end-user-messaging-sender';
import { GraphApiWhatsAppSender } from './graph-api-sender';

/** Meta's Cloud API: the Graph API with the access token of the WhatsApp secret. */
export interface CloudApiChannel {
  readonly kind: typeof WHATSAPP_CHANNEL_KINDS.cloudApi;
  readonly whatsAppSecretArn: string;
  readonly apiBaseUrl: string;
}

/** AWS End User Messaging Social: `SendWhatsAppMessage` with the function's IAM role. */
export interface EndUserMessagingChannel {
  readonly kind: typeof WHATSAPP_CHANNEL_KINDS.endUserMessaging;
  /** Meta phone number id → End User Messaging phone number id (`phone-number-id-…`). */
  readonly phoneNumbers: ReadonlyMap<string, string>;
  readonly metaApiVersion: string;
}

/** Where replies go out: the one decision that differs between the channels on the sending side. */
export type WhatsAppChannelConfig = CloudApiChannel | EndUserMessagingChannel;

/** Reads the channel the construct configured; without `WHATSAPP_CHANNEL`, the Cloud API (as before channels existed). */
export function whatsAppChannelFromEnvironment(env: NodeJS.ProcessEnv): WhatsAppChannelConfig {
  const kind = env[RUNTIME_ENV.whatsAppChannel]?.trim() || WHATSAPP_CHANNEL_KINDS.cloudApi;
  if (kind === WHATSAPP_CHANNEL_KINDS.cloudApi) {
    return {
      kind,
      whatsAppSecretArn: requiredVariable(env, RUNTIME_ENV.whatsAppSecretArn),
      apiBaseUrl: env[RUNTIME_ENV.whatsAppApiBaseUrl]?.trim() || PIPELINE_DEFAULTS.whatsAppApiBaseUrl,
    };
  }
  if (kind === WHATSAPP_CHANNEL_KINDS.endUserMessaging) {
    return {
      kind,
      phoneNumbers: parseEndUserMessagingPhoneNumbers(requiredVariable(env, RUNTIME_ENV.endUserMessagingPhoneNumbers)),
      metaApiVersion: env[RUNTIME_ENV.endUserMessagingMetaApiVersion]?.trim() || PIPELINE_DEFAULTS.endUserMessagingMetaApiVersion,
    };
  }
  throw new RuntimeConfigError(`Environment variable ${RUNTIME_ENV.whatsAppChannel}="${kind}" is not one of ${Object.values(WHATSAPP_CHANNEL_KINDS).join(', ')}.`);
}

/** `metaPhoneNumberId=phone-number-id-…` pairs, comma-separated, as the construct writes them. */
export function parseEndUserMessagingPhoneNumbers(value: string): ReadonlyMap<string, string> {
  const phoneNumbers = new Map<string, string>();
  for (const pair of value.split(',')) {
    const [metaPhoneNumberId, originationPhoneNumberId, ...rest] = pair.split('=').map((part) => part.trim());
    if (rest.length > 0 || !isValidBusinessPhoneNumberId(metaPhoneNumberId ?? '') || !isOriginationPhoneNumberId(originationPhoneNumberId ?? '')) {
      throw new RuntimeConfigError(`Environment variable ${RUNTIME_ENV.endUserMessagingPhoneNumbers} holds "${pair}", not metaPhoneNumberId=phone-number-id-….`);
    }
    phoneNumbers.set(metaPhoneNumberId, originationPhoneNumberId);
  }
  return phoneNumbers;
}

export interface SenderCompositionOptions {
  /** End User Messaging endpoint to call instead of the SDK's (the local fake). */
  readonly endUserMessagingEndpoint?: string;
}

/** The sender of the configured channel: chosen here, in the composition, never in a use case. */
export function createWhatsAppSender(channel: WhatsAppChannelConfig, options: SenderCompositionOptions = {}): WhatsAppSender {
  if (channel.kind === WHATSAPP_CHANNEL_KINDS.cloudApi) {
    return new GraphApiWhatsAppSender({ baseUrl: channel.apiBaseUrl, credentials: new SecretsManagerCredentialsProvider({ secretId: channel.whatsAppSecretArn }) });
  }
  return new EndUserMessagingWhatsAppSender({
    send: endUserMessagingSend({ endpoint: options.endUserMessagingEndpoint }),
    phoneNumbers: channel.phoneNumbers,
    metaApiVersion: channel.metaApiVersion,
  });
}
