import type { OutboundTextMessage, ReadReceipt } from '../../ports/whatsapp-sender';

/**
 * The Cloud API message objects both channels send: the Graph API adapter POSTs them, the End User
 * Messaging adapter passes them through `SendWhatsAppMessage` unchanged.
 */
export function textMessagePayload(message: OutboundTextMessage, body: string): object {
  // Business-scoped user ids (customers known without a phone) are addressed with `recipient`.
  const address = message.customerIdKind === 'user_id' ? { recipient: message.customerId } : { to: message.customerId };
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    ...address,
    type: 'text',
    text: { body, preview_url: false },
    ...(message.callbackData !== undefined && { biz_opaque_callback_data: message.callbackData }),
  };
}

export function readReceiptPayload(receipt: ReadReceipt): object {
  return {
    messaging_product: 'whatsapp',
    status: 'read',
    message_id: receipt.messageId,
    ...(receipt.showTypingIndicator ? { typing_indicator: { type: 'text' } } : {}),
  };
}

/**
 * Socket errors raised before a single byte of the request left this process: the message was
 * certainly not accepted. Any other failure may have happened after the provider received the request.
 */
export const CONNECT_PHASE_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
