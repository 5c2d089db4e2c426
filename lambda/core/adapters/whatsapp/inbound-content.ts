import type { InboundTurn } from '../../domain/inbound-turn';
import { MEDIA_KINDS, type InboundMedia, type MediaKind } from '../../domain/media';
import { displayableFileName } from '../../domain/text-bounds';
import { isObject, joinParts, optionalString, requireArray, requireObject, requireString, WebhookPayloadError, type Json } from './webhook-json';

/**
 * What one customer message says and does, whatever its type: the text the history and the agent
 * read, and what the pipeline does with it besides (docs/DESIGN.md#inbound-message-types).
 */
export type InboundContent = Pick<InboundTurn, 'text' | 'media' | 'quotedMessageId' | 'choiceId' | 'reaction' | 'editOf' | 'revokes' | 'unsupported'>;

/** What a type's own object (`message[type]`) says; the message's common fields are read apart. */
type TypeContent = Omit<InboundContent, 'quotedMessageId'>;

/** How one message type reads, given its own object and the whole message. A malformed shape throws. */
type TypeReader = (content: Json, message: Json) => TypeContent;

/**
 * One reader per Meta message type (developers.facebook.com, "Messages webhook reference"). A type
 * missing here is one the pipeline cannot read: it is `unsupported`, answered with a notice.
 */
const READERS: Readonly<Record<string, TypeReader>> = {
  text: (content) => ({ text: requireString(content.body, 'messages[].text.body') }),
  ...Object.fromEntries(MEDIA_KINDS.map((kind) => [kind, (content: Json) => mediaContent(kind, content)])),
  location: (content) => {
    const coordinates = typeof content.latitude === 'number' && typeof content.longitude === 'number' ? `(${content.latitude}, ${content.longitude})` : undefined;
    return { text: joinParts(['[location]', optionalString(content.name), optionalString(content.address), coordinates, optionalString(content.url)]) };
  },
  contacts: (_content, message) => ({ text: joinParts(requireArray(message.contacts, 'messages[].contacts').map(contactCard), '\n') || '[contacts]' }),
  interactive: (content) => interactiveContent(content),
  button: (content) => ({ text: optionalString(content.text) ?? optionalString(content.payload) ?? '[button]' }),
  reaction: (content) => {
    const targetMessageId = requireString(content.message_id, 'messages[].reaction.message_id');
    const emoji = optionalString(content.emoji);
    return { text: emoji === undefined ? '[reaction removed]' : `[reaction] ${emoji}`, reaction: { targetMessageId, ...(emoji === undefined ? {} : { emoji }) } };
  },
  order: (content) => orderContent(content),
  edit: (content) => {
    const editOf = requireString(content.original_message_id, 'messages[].edit.original_message_id');
    const edited = requireObject(content.message, 'messages[].edit.message');
    const type = requireString(edited.type, 'messages[].edit.message.type');
    // The new text only: an edit changes words (a text, a caption), never the attachment itself.
    const { text } = readType(edited, type);
    return { text, editOf };
  },
  // Coexistence numbers only ("Revoke messages webhook reference"): the customer deleted a message.
  revoke: (content) => ({ text: '[revoke]', revokes: requireString(content.original_message_id, 'messages[].revoke.original_message_id') }),
};

/** The content of one message of the webhook's `messages[]` (or an edit's inner message). */
export function inboundContent(message: Json, type: string): InboundContent {
  const content = readType(message, type);
  const context = isObject(message.context) ? message.context : undefined;
  const quotedMessageId = optionalString(context?.id);
  const lines = [content.text, referredProduct(context), message.referral === undefined ? undefined : referralLine(requireObject(message.referral, 'messages[].referral'))];
  return { ...content, text: joinParts(lines, '\n'), ...(quotedMessageId === undefined ? {} : { quotedMessageId }) };
}

function readType(message: Json, type: string): TypeContent {
  const reader = Object.hasOwn(READERS, type) ? READERS[type] : undefined;
  if (reader === undefined) return { text: `[${type}]`, unsupported: true };
  // `contacts` is the only type whose own field is a list; every other one is an object.
  const content = type === 'contacts' ? {} : requireObject(message[type], `messages[].${type}`);
  return reader(content, message);
}

function mediaContent(kind: MediaKind, content: Json): TypeContent {
  const caption = optionalString(content.caption);
  // Shown to operators and offered as the download's name: what it says, without characters that reorder it.
  const filename = optionalString(displayableFileName(optionalString(content.filename) ?? ''));
  const media: InboundMedia = {
    kind,
    providerMediaId: requireString(content.id, `messages[].${kind}.id`),
    ...definedFields({ mimeType: optionalString(content.mime_type), sha256: optionalString(content.sha256), filename, caption }),
    ...(content.voice === true ? { voice: true } : {}),
  };
  return { text: joinParts([`[${kind}]`, filename, caption]), media };
}

/** A button or list choice reads as its title, with the option's id; a flow's answers as `field: value` lines. */
function interactiveContent(content: Json): TypeContent {
  for (const kind of ['button_reply', 'list_reply'] as const) {
    if (!isObject(content[kind])) continue;
    const choiceId = optionalString(content[kind].id);
    return { text: optionalString(content[kind].title) ?? choiceId ?? '[interactive]', ...(choiceId === undefined ? {} : { choiceId }) };
  }
  if (isObject(content.nfm_reply)) return { text: flowAnswers(content.nfm_reply) };
  return { text: '[interactive]' };
}

/** Fields of a flow's `response_json` nobody filled in: Meta's own bookkeeping. */
const FLOW_BOOKKEEPING = new Set(['flow_token']);

function flowAnswers(reply: Json): string {
  const raw = requireString(reply.response_json, 'messages[].interactive.nfm_reply.response_json');
  let answers: unknown;
  try {
    answers = JSON.parse(raw);
  } catch {
    throw new WebhookPayloadError('messages[].interactive.nfm_reply.response_json is not JSON');
  }
  const fields = requireObject(answers, 'messages[].interactive.nfm_reply.response_json');
  const lines = Object.entries(fields)
    .filter(([name]) => !FLOW_BOOKKEEPING.has(name))
    .map(([name, value]) => `${name}: ${Array.isArray(value) ? value.map(String).join(', ') : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}`);
  return joinParts([`[flow] ${optionalString(reply.name) ?? 'flow'}`, ...lines], '\n');
}

/** One shared contact card: name, organisation, phones, emails, addresses, sites. */
function contactCard(card: unknown): string {
  const contact = requireObject(card, 'messages[].contacts[]');
  const name = isObject(contact.name) ? (optionalString(contact.name.formatted_name) ?? joinParts([optionalString(contact.name.first_name), optionalString(contact.name.last_name)])) : undefined;
  const org = isObject(contact.org) ? joinParts([optionalString(contact.org.company), optionalString(contact.org.title)], ', ') : '';
  const listed = (field: string, key: string) =>
    requireArray(contact[field], `messages[].contacts[].${field}`).flatMap((item) => {
      const value = isObject(item) ? optionalString(item[key]) : undefined;
      return value === undefined ? [] : [value];
    });
  const parts = [
    `[contact] ${name || 'unnamed'}`,
    org || undefined,
    ...listed('phones', 'phone'),
    ...listed('emails', 'email'),
    ...listed('addresses', 'street'),
    ...listed('urls', 'url'),
    optionalString(contact.birthday),
  ];
  return joinParts(parts, '; ');
}

/** A catalogue order: each item with quantity and price, and the customer's note. */
function orderContent(content: Json): TypeContent {
  const items = requireArray(content.product_items, 'messages[].order.product_items').map((item) => {
    const product = requireObject(item, 'messages[].order.product_items[]');
    const price = product.item_price === undefined ? undefined : `(${String(product.item_price)}${optionalString(product.currency) === undefined ? '' : ` ${product.currency as string}`})`;
    return joinParts([`${String(product.quantity ?? 1)} × ${requireString(product.product_retailer_id, 'messages[].order.product_items[].product_retailer_id')}`, price]);
  });
  return { text: joinParts([joinParts(['[order]', optionalString(content.catalog_id) && `catalogue ${content.catalog_id as string}`]), ...items, optionalString(content.text)], '\n') };
}

/** The product a customer asks about from a catalogue message ("Message business" on a product). */
function referredProduct(context: Json | undefined): string | undefined {
  const product = isObject(context?.referred_product) ? context.referred_product : undefined;
  return product === undefined ? undefined : `[product] ${requireString(product.product_retailer_id, 'messages[].context.referred_product.product_retailer_id')}`;
}

/** The ad or post a customer came from (click-to-WhatsApp): what it said and where it was. */
function referralLine(referral: Json): string {
  const source = joinParts([optionalString(referral.source_type), optionalString(referral.source_id)]);
  return joinParts(['[ad]', optionalString(referral.headline), optionalString(referral.body), optionalString(referral.source_url), source ? `(${source})` : undefined]);
}

function definedFields<T extends Record<string, string | undefined>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}
