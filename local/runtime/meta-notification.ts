import { randomBytes } from 'node:crypto';
import { signMetaPayload } from '../../lambda/core/adapters/whatsapp/webhook-signature';

/** The WhatsApp Business number the local pipeline plays (Meta's test-number shapes). */
export const LOCAL_BUSINESS = {
  businessAccountId: '100000000000001',
  businessPhoneNumberId: '100000000000002',
  displayPhoneNumber: '15550000000',
} as const;

export interface CustomerTextMessage {
  /** The customer's WhatsApp id (digits of the phone number). */
  readonly from: string;
  readonly text: string;
  /** Default: a fresh `wamid.` id. */
  readonly messageId?: string;
  /** When the customer sent it. Default: now. */
  readonly sentAt?: Date;
  readonly profileName?: string;
  /**
   * A message of another type, as Meta writes it: `type` and that type's object (an image's
   * `image: { id, mime_type, sha256, caption }`, a `reaction`…), sent instead of `text`.
   */
  readonly content?: MetaMessageContent;
}

/** A `messages[]` element's `type` and the object it names, e.g. `{ type: 'image', image: { id, mime_type } }`. */
export interface MetaMessageContent {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** A fresh id in Meta's `wamid.` shape. */
export function newWamid(): string {
  return `wamid.${randomBytes(30).toString('base64')}`;
}

/**
 * The notification Meta POSTs when customers send text messages: one entry, one `messages` change,
 * with contacts and metadata as the Cloud API sends them.
 */
export function textMessageNotification(messages: readonly (CustomerTextMessage & { readonly messageId: string })[]): object {
  const contacts = [...new Map(messages.map((message) => [message.from, message])).values()].map((message) => ({
    // A profile only when the test or the demo gives one: a row names the customer by it first.
    ...(message.profileName === undefined ? {} : { profile: { name: message.profileName } }),
    wa_id: message.from,
  }));
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: LOCAL_BUSINESS.businessAccountId,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: LOCAL_BUSINESS.displayPhoneNumber, phone_number_id: LOCAL_BUSINESS.businessPhoneNumberId },
              contacts,
              messages: messages.map((message) => ({
                from: message.from,
                id: message.messageId,
                timestamp: String(Math.floor((message.sentAt ?? new Date()).getTime() / 1000)),
                ...(message.content ?? { type: 'text', text: { body: message.text } }),
              })),
            },
          },
        ],
      },
    ],
  };
}

export interface BusinessEchoMessage {
  /** The customer the business wrote to (their WhatsApp id). */
  readonly to: string;
  readonly text: string;
  /** Default: a fresh `wamid.` id. */
  readonly messageId?: string;
  /** When the business sent it. Default: now. */
  readonly sentAt?: Date;
}

/**
 * The notification Meta POSTs on a number shared with the WhatsApp Business app ("coexistence")
 * when a person of the business writes to a customer from the app: the `smb_message_echoes` field,
 * each echo `from` the business's display number `to` the customer.
 */
export function businessEchoNotification(echoes: readonly (BusinessEchoMessage & { readonly messageId: string })[]): object {
  const metadata = { display_phone_number: LOCAL_BUSINESS.displayPhoneNumber, phone_number_id: LOCAL_BUSINESS.businessPhoneNumberId };
  const messageEchoes = echoes.map((echo) => ({
    from: LOCAL_BUSINESS.displayPhoneNumber,
    to: echo.to,
    id: echo.messageId,
    timestamp: String(Math.floor((echo.sentAt ?? new Date()).getTime() / 1000)),
    type: 'text',
    text: { body: echo.text },
  }));
  return { object: 'whatsapp_business_account', entry: [{ id: LOCAL_BUSINESS.businessAccountId, changes: [{ field: 'smb_message_echoes', value: { messaging_product: 'whatsapp', metadata, message_echoes: messageEchoes } }] }] };
}

/** POSTs what the business wrote from the WhatsApp Business app to a webhook, as Meta does. */
export async function deliverBusinessEcho(webhookUrl: string, appSecret: string, echo: BusinessEchoMessage): Promise<{ readonly status: number; readonly messageId: string }> {
  const identified = { ...echo, messageId: echo.messageId ?? newWamid() };
  const { status } = await postSignedNotification(webhookUrl, appSecret, businessEchoNotification([identified]));
  return { status, messageId: identified.messageId };
}

export interface WebhookDelivery {
  /** The webhook's HTTP status (200 once the messages are durable and dispatched). */
  readonly status: number;
  readonly body: string;
  /** The `wamid.` ids delivered, in order. */
  readonly messageIds: string[];
}

/** POSTs customer messages to a webhook exactly as Meta does: raw JSON body signed with the app secret. */
export async function deliverToWebhook(webhookUrl: string, appSecret: string, messages: readonly CustomerTextMessage[]): Promise<WebhookDelivery> {
  const identified = messages.map((message) => ({ ...message, messageId: message.messageId ?? newWamid() }));
  const answer = await postSignedNotification(webhookUrl, appSecret, textMessageNotification(identified));
  return { ...answer, messageIds: identified.map((message) => message.messageId) };
}

/** POSTs any notification of Meta's (messages, statuses) to a webhook as Meta does. */
export async function postSignedNotification(webhookUrl: string, appSecret: string, notification: object): Promise<{ readonly status: number; readonly body: string }> {
  const rawBody = JSON.stringify(notification);
  const response = await fetch(webhookUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'facebookexternalua',
      'x-hub-signature-256': signMetaPayload(rawBody, appSecret),
    },
    body: rawBody,
  });
  return { status: response.status, body: await response.text() };
}
