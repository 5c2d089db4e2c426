import type { BusinessEcho } from '../../domain/business-echo';
import { isValidCustomerId, isValidMessageId } from '../../domain/inbound-turn';
import { cutOnCodePoints } from '../../domain/text-bounds';
import { inboundContent } from './inbound-content';
import { requireString, WebhookPayloadError, type Json } from './webhook-json';

/** The webhook field of coexistence numbers that carries what the business sent from the WhatsApp Business app. */
export const ECHOES_FIELD = 'smb_message_echoes';

/**
 * One `message_echoes[]` element (`{from: <business number>, to: <customer>, id, timestamp, type,
 * <type>: {…}}`) as the business's message to the customer. Its content is read like a customer's
 * message of the same type; one whose content cannot be read is kept as `[type]`, since what matters
 * is that the business answered. One that names no customer or no id throws.
 */
export function toBusinessEcho(echo: Json, header: { readonly businessPhoneNumberId: string; readonly receivedAt: string; readonly epochSecondsToIso: (value: unknown) => string }, maxTextLength: number): BusinessEcho {
  const customerId = requireString(echo.to, 'message_echoes[].to');
  if (!isValidCustomerId(customerId)) throw new WebhookPayloadError('message_echoes[].to is not a WhatsApp id');
  const messageId = requireString(echo.id, 'message_echoes[].id');
  if (!isValidMessageId(messageId)) throw new WebhookPayloadError('message_echoes[].id is not a WhatsApp message id');
  const messageType = /^[a-z_]{1,32}$/.test(String(echo.type)) ? String(echo.type) : 'unknown';
  return {
    customerId,
    customerIdKind: 'phone',
    messageId,
    providerTimestamp: header.epochSecondsToIso(echo.timestamp),
    receivedAt: header.receivedAt,
    businessPhoneNumberId: header.businessPhoneNumberId,
    messageType,
    text: cutOnCodePoints(readableText(echo, messageType), maxTextLength),
  };
}

function readableText(echo: Json, type: string): string {
  try {
    return inboundContent(echo, type).text;
  } catch (error) {
    if (!(error instanceof WebhookPayloadError)) throw error;
    return `[${type}]`;
  }
}
