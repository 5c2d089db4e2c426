import type { InteractiveOption, InteractiveReply } from '../../domain/interactive-reply';
import { type FilledTemplateParameter, mediaReference } from '../../domain/template-parameters';
import type { OutboundMediaMessage, OutboundTemplateMessage, OutboundTextMessage, ReadReceipt } from '../../ports/whatsapp-sender';
import { splitWhatsAppText } from './whatsapp-text';

/**
 * The Cloud API message objects both channels send: the Graph API adapter POSTs them, the End User
 * Messaging adapter passes them through `SendWhatsAppMessage` unchanged.
 */
function textMessagePayload(message: OutboundTextMessage, body: string): object {
  return {
    ...envelope(message),
    type: 'text',
    text: { body, preview_url: false },
    ...callbackDataField(message),
  };
}

/**
 * The messages a reply goes out as, in order: one interactive message when it has buttons, a list
 * or a link button; else its text, split into as many text messages as it needs.
 */
export function replyPayloads(message: OutboundTextMessage, maxParts: number | undefined): object[] {
  if (message.interactive !== undefined) return [interactiveMessagePayload(message, message.interactive)];
  return splitWhatsAppText(message.text, { maxParts }).map((body) => textMessagePayload(message, body));
}

/** Meta's `interactive` object: `button`, `list` or `cta_url`, the reply's text as its body. */
function interactiveMessagePayload(message: OutboundTextMessage, interactive: InteractiveReply): object {
  const option = ({ id, title, description }: InteractiveOption) => ({ id, title, ...(description === undefined ? {} : { description }) });
  const action =
    interactive.kind === 'buttons'
      ? { buttons: interactive.buttons.map(({ id, title }) => ({ type: 'reply', reply: { id, title } })) }
      : interactive.kind === 'list'
        ? { button: interactive.button, sections: interactive.sections.map((section) => ({ ...(section.title === undefined ? {} : { title: section.title }), rows: section.rows.map(option) })) }
        : { name: 'cta_url', parameters: { display_text: interactive.displayText, url: interactive.url } };
  return {
    ...envelope(message),
    type: 'interactive',
    interactive: {
      type: interactive.kind === 'buttons' ? 'button' : interactive.kind,
      ...(interactive.header === undefined ? {} : { header: { type: 'text', text: interactive.header } }),
      body: { text: message.text },
      ...(interactive.footer === undefined ? {} : { footer: { text: interactive.footer } }),
      action,
    },
    ...callbackDataField(message),
  };
}

/**
 * A template send: Meta's `components`, one per component that takes values — the header (its text,
 * or its media by `link` or uploaded `id`), the body (texts, by name when the template names them),
 * and each button that takes one (a URL's suffix, a copy-code button's `coupon_code`) by its index.
 */
export function templateMessagePayload(message: OutboundTemplateMessage): object {
  const components: object[] = [];
  for (const component of ['header', 'body'] as const) {
    const parameters = message.parameters.filter((parameter) => parameter.component === component).map(parameterPayload);
    if (parameters.length > 0) components.push({ type: component, parameters });
  }
  for (const parameter of message.parameters.filter((candidate) => candidate.component === 'button')) {
    components.push({ type: 'button', sub_type: parameter.kind === 'coupon_code' ? 'copy_code' : 'url', index: String(parameter.button?.index), parameters: [parameterPayload(parameter)] });
  }
  return {
    ...envelope(message),
    type: 'template',
    template: {
      name: message.templateName,
      language: { code: message.languageCode },
      ...(components.length === 0 ? {} : { components }),
    },
    ...callbackDataField(message),
  };
}

function parameterPayload(parameter: FilledTemplateParameter): object {
  if (parameter.kind === 'coupon_code') return { type: 'coupon_code', coupon_code: parameter.value };
  if (parameter.kind !== 'text') return { type: parameter.kind, [parameter.kind]: mediaReference(parameter.value) };
  return { type: 'text', ...(parameter.named ? { parameter_name: parameter.placeholder } : {}), text: parameter.value };
}

/**
 * A media message naming an upload of the provider's (`id`): an image with its caption, a document
 * with its caption and the file name the customer sees.
 */
export function mediaMessagePayload(message: OutboundMediaMessage, mediaId: string): object {
  const media = {
    id: mediaId,
    ...(message.caption === undefined ? {} : { caption: message.caption }),
    ...(message.kind === 'document' && message.fileName !== undefined ? { filename: message.fileName } : {}),
  };
  return { ...envelope(message), type: message.kind, [message.kind]: media, ...callbackDataField(message) };
}

function callbackDataField(message: Pick<OutboundTextMessage, 'callbackData'>): object {
  return message.callbackData === undefined ? {} : { biz_opaque_callback_data: message.callbackData };
}

function envelope(message: Pick<OutboundTextMessage, 'customerId' | 'customerIdKind'>): object {
  // Business-scoped user ids (customers known without a phone) are addressed with `recipient`.
  const address = message.customerIdKind === 'user_id' ? { recipient: message.customerId } : { to: message.customerId };
  return { messaging_product: 'whatsapp', recipient_type: 'individual', ...address };
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
