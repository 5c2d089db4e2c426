import { isValidBusinessPhoneNumberId } from '../../domain/inbound-admission';
import { isValidCustomerId, isValidMessageId, type InboundTurn } from '../../domain/inbound-turn';
import { MAX_PROFILE_NAME_CHARS } from '../../domain/inbox-summary';
import { cutOnCodePoints } from '../../domain/text-bounds';
import { isLanguageCode, isTemplateName, statusAfterEvent, type TemplateStatusUpdate } from '../../domain/whatsapp-template';
import type { BusinessEcho } from '../../domain/business-echo';
import type { MetaPricing } from '../../domain/meta-fee';
import { ECHOES_FIELD, toBusinessEcho } from './business-echo-payload';
import { inboundContent } from './inbound-content';
import { statusPricingOf } from './status-pricing';
import { isObject, optionalString, requireArray, requireObject, requireString, WebhookPayloadError, type Json } from './webhook-json';

/**
 * A delivery status Meta reports for a message the business sent. Statuses arrive on the same
 * endpoint as messages but are never customer turns.
 */
export interface DeliveryStatus {
  readonly providerMessageId: string;
  /** `sent`, `delivered`, `read`, `failed` — or a kind the pipeline does not record (`played`, `deleted`, …). */
  readonly status: string;
  readonly timestamp: string;
  /** `errors[0].code` of a `failed` status. */
  readonly errorCode?: number;
  /** `biz_opaque_callback_data`: what the send of the message carried, echoed by Meta. */
  readonly callbackData?: string;
  /** Whom the message went to, as Meta names them: `recipient_id` (the phone) and `recipient_user_id` (the business-scoped user id), those present. */
  readonly recipientIds: readonly string[];
  /** How Meta bills the message (`pricing`), on the statuses that carry it. */
  readonly pricing?: MetaPricing;
}

export interface ParsedWebhook {
  readonly turns: InboundTurn[];
  readonly statuses: DeliveryStatus[];
  /** `message_template_status_update` changes (a template of the account approved, paused, disabled…); present when there are some. */
  readonly templateStatusUpdates?: TemplateStatusUpdate[];
  /** `smb_message_echoes`: what the business sent from the WhatsApp Business app on a coexistence number; present when there are some. */
  readonly echoes?: BusinessEcho[];
  /** Customer messages of the `standby` field (another app holds the thread): recorded, never answered; present when there are some. */
  readonly standby?: InboundTurn[];
  /** `messaging_handovers` changes (thread control passed between apps): counted; present when there are some. */
  readonly handovers?: number;
  /** Entries of other webhook fields or message kinds that are not customer turns (e.g. `system`). */
  readonly ignored: number;
  /**
   * Parts Meta signed that could not be read (a change, a message naming no customer, a status of
   * the wrong shape): counted and dropped, never a reason to refuse the notification, which Meta
   * would only send again for days. A message that names its customer but cannot be read is a
   * turn marked `unsupported` instead, so the customer is told.
   */
  readonly unreadable: number;
}

export { WebhookPayloadError };

/** WhatsApp's own limit for a text body; anything longer is not a genuine customer message. */
export const MAX_TURN_TEXT_LENGTH = 4096;

/** Message kinds that are account events rather than something the customer said. */
const NON_TURN_MESSAGE_TYPES = new Set(['system', 'ephemeral', 'request_welcome']);

/** A lone UTF-16 surrogate: a JSON escape can spell it, but it is not text (nor storable as UTF-8). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The latest instant an ISO-8601 timestamp of the persisted format can hold (9999-12-31T23:59:59Z). */
const MAX_EPOCH_SECONDS = 253_402_300_799;

/** Meta sends epoch seconds as a string (sometimes a number). */
function epochSecondsToIso(value: unknown, where: string): string {
  const seconds = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,12}$/.test(value) ? Number(value) : NaN;
  if (!(seconds >= 0 && seconds <= MAX_EPOCH_SECONDS)) throw new WebhookPayloadError(`${where} must be epoch seconds`);
  return new Date(seconds * 1000).toISOString();
}

function toTurn(message: Json, metadata: Json, receivedAt: string): InboundTurn {
  const type = requireString(message.type, 'messages[].type');
  const customer = customerOf(message);
  if (customer === undefined) throw new WebhookPayloadError('messages[] needs `from` or `from_user_id`');
  if (!isValidCustomerId(customer.customerId)) throw new WebhookPayloadError('messages[].from is not a WhatsApp id');
  const messageId = requireString(message.id, 'messages[].id');
  if (!isValidMessageId(messageId)) throw new WebhookPayloadError('messages[].id is not a WhatsApp message id');
  const { text, ...content } = inboundContent(message, type);
  if (LONE_SURROGATE.test(text)) throw new WebhookPayloadError('the message text is not well-formed Unicode');
  const referenced = [content.quotedMessageId, content.reaction?.targetMessageId, content.editOf, content.revokes];
  if (referenced.some((id) => id !== undefined && !isValidMessageId(id))) throw new WebhookPayloadError('messages[] refers to a message by an id that is not a WhatsApp message id');
  return { ...turnHeader(message, metadata, receivedAt, customer, messageId), messageType: type, text: cutOnCodePoints(text, MAX_TURN_TEXT_LENGTH), ...content };
}

/** Who wrote: the phone (`from`), or the business-scoped user id when Meta gives no phone. */
function customerOf(message: Json): Pick<InboundTurn, 'customerId' | 'customerIdKind'> | undefined {
  const phone = optionalString(message.from);
  if (phone !== undefined) return { customerId: phone, customerIdKind: 'phone' };
  const userId = optionalString(message.from_user_id);
  return userId === undefined ? undefined : { customerId: userId, customerIdKind: 'user_id' };
}

/** What every turn of a message carries besides its content: who, which message, when, to which business number. */
function turnHeader(message: Json, metadata: Json, receivedAt: string, customer: Pick<InboundTurn, 'customerId' | 'customerIdKind'>, messageId: string) {
  return {
    ...customer,
    messageId,
    providerTimestamp: epochSecondsToIso(message.timestamp, 'messages[].timestamp'),
    receivedAt,
    businessPhoneNumberId: requirePhoneNumberId(metadata.phone_number_id),
    displayPhoneNumber: optionalString(metadata.display_phone_number),
  };
}

/** The id later becomes a Graph API path segment: only Meta's digits may get there. */
function requirePhoneNumberId(value: unknown): string {
  const id = requireString(value, 'value.metadata.phone_number_id');
  if (!isValidBusinessPhoneNumberId(id)) throw new WebhookPayloadError('value.metadata.phone_number_id is not a Meta phone number id');
  return id;
}

function toStatus(status: unknown): DeliveryStatus {
  const item = requireObject(status, 'statuses[]');
  const providerMessageId = requireString(item.id, 'statuses[].id');
  if (!isValidMessageId(providerMessageId)) throw new WebhookPayloadError('statuses[].id is not a WhatsApp message id');
  const firstError = Array.isArray(item.errors) && isObject(item.errors[0]) ? item.errors[0] : undefined;
  const recipientIds = [optionalString(item.recipient_id), optionalString(item.recipient_user_id)].filter((id): id is string => id !== undefined);
  const pricing = statusPricingOf(item.pricing);
  return {
    providerMessageId,
    status: requireString(item.status, 'statuses[].status'),
    timestamp: epochSecondsToIso(item.timestamp, 'statuses[].timestamp'),
    errorCode: Number.isSafeInteger(firstError?.code) ? (firstError?.code as number) : undefined,
    callbackData: optionalString(item.biz_opaque_callback_data),
    recipientIds,
    ...(pricing !== undefined && { pricing }),
  };
}

/**
 * A message that names its customer, its id, its time and the business number, but whose content
 * cannot be read (Meta's own "Unsupported webhook payload", a type's object missing): a turn the
 * customer is told about, like a type the pipeline does not know. Anything less is unreadable.
 */
function unreadableTurn(message: Json, metadata: Json, receivedAt: string): InboundTurn | undefined {
  try {
    const customer = customerOf(message);
    const messageId = optionalString(message.id);
    if (customer === undefined || !isValidCustomerId(customer.customerId) || messageId === undefined || !isValidMessageId(messageId)) return undefined;
    const type = /^[a-z_]{1,32}$/.test(String(message.type)) ? String(message.type) : 'unknown';
    return { ...turnHeader(message, metadata, receivedAt, customer, messageId), messageType: type, text: `[${type}]`, unsupported: true };
  } catch (error) {
    if (error instanceof WebhookPayloadError) return undefined;
    throw error;
  }
}

/**
 * Normalises a Meta WhatsApp Business Account notification: every
 * `entry[].changes[].value.messages[]` becomes an InboundTurn, in payload order. Only a body that is
 * not a notification at all (not JSON, another object kind, no list of entries) is refused, with a
 * WebhookPayloadError; inside one, a part of the wrong shape is counted as `unreadable` and the
 * rest is read, so nothing Meta signed makes the whole notification fail.
 */
export function parseWebhookPayload(rawBody: string, receivedAt: Date): ParsedWebhook {
  let document: unknown;
  try {
    document = JSON.parse(rawBody);
  } catch {
    throw new WebhookPayloadError('body is not valid JSON');
  }
  const root = requireObject(document, 'body');
  if (root.object !== 'whatsapp_business_account') throw new WebhookPayloadError('body.object must be "whatsapp_business_account"');
  const entries = requireArray(root.entry, 'entry');
  const parsed = new NotificationReader(receivedAt.toISOString());
  for (const entry of entries) {
    parsed.readPart(() => {
      const entryObject = requireObject(entry, 'entry[]');
      for (const change of requireArray(entryObject.changes, 'entry[].changes')) parsed.readPart(() => parsed.readChange(change, entryObject));
    });
  }
  const { turns, statuses, templateStatusUpdates, echoes, standby, handovers, ignored, unreadable } = parsed;
  return {
    turns,
    statuses,
    ...(templateStatusUpdates.length > 0 ? { templateStatusUpdates } : {}),
    ...(echoes.length > 0 ? { echoes } : {}),
    ...(standby.length > 0 ? { standby } : {}),
    ...(handovers > 0 ? { handovers } : {}),
    ignored,
    unreadable,
  };
}

/** What a notification yields, collected part by part. */
class NotificationReader {
  readonly turns: InboundTurn[] = [];
  readonly statuses: DeliveryStatus[] = [];
  readonly templateStatusUpdates: TemplateStatusUpdate[] = [];
  readonly echoes: BusinessEcho[] = [];
  readonly standby: InboundTurn[] = [];
  handovers = 0;
  ignored = 0;
  unreadable = 0;

  constructor(private readonly receivedAt: string) {}

  /** Reads one part; a part of the wrong shape counts as unreadable and the rest goes on. */
  readPart(read: () => void): void {
    try {
      read();
    } catch (error) {
      if (!(error instanceof WebhookPayloadError)) throw error;
      this.unreadable += 1;
    }
  }

  /** One `changes[]` element: a template status change, coexistence echoes, thread control, another field (ignored), or messages and statuses. */
  readChange(change: unknown, entry: Json): void {
    const changeObject = requireObject(change, 'changes[]');
    const templateUpdate = changeObject.field === TEMPLATE_STATUS_FIELD ? toTemplateStatusUpdate(changeObject.value, entry.time, this.receivedAt) : undefined;
    if (templateUpdate !== undefined) {
      this.templateStatusUpdates.push(templateUpdate);
      return;
    }
    if (changeObject.field === HANDOVERS_FIELD) {
      this.handovers += 1;
      return;
    }
    // A field of another type is another field: `String()` of an object whose `toString` is not a function throws.
    if (changeObject.field !== undefined && !(typeof changeObject.field === 'string' && MESSAGE_FIELDS.has(changeObject.field))) {
      this.ignored += 1;
      return;
    }
    const value = requireObject(changeObject.value, 'changes[].value');
    const metadata = isObject(value.metadata) ? value.metadata : {};
    if (changeObject.field === ECHOES_FIELD) {
      this.readPart(() => {
        for (const echo of requireArray(value.message_echoes, 'value.message_echoes')) this.readPart(() => this.echoes.push(readEcho(echo, metadata, this.receivedAt)));
      });
      return;
    }
    const profileNames = profileNamesOf(value.contacts);
    const into = changeObject.field === STANDBY_FIELD ? this.standby : this.turns;
    this.readPart(() => {
      for (const message of requireArray(value.messages, 'value.messages')) this.readMessage(message, metadata, profileNames, into);
    });
    this.readPart(() => {
      for (const status of requireArray(value.statuses, 'value.statuses')) this.readPart(() => this.statuses.push(toStatus(status)));
    });
  }

  private readMessage(message: unknown, metadata: Json, profileNames: ReadonlyMap<string, string>, into: InboundTurn[]): void {
    if (isObject(message) && NON_TURN_MESSAGE_TYPES.has(String(message.type))) {
      this.ignored += 1;
      return;
    }
    const turn = isObject(message) ? readTurn(message, metadata, this.receivedAt) : undefined;
    if (turn === undefined) this.unreadable += 1;
    else into.push(withProfileName(turn, profileNames));
  }
}

/** The fields whose `value.messages[]` are customer messages: the agent's, or another app's while it holds the thread (`standby`). */
const STANDBY_FIELD = 'standby';
const MESSAGE_FIELDS = new Set(['messages', STANDBY_FIELD, ECHOES_FIELD]);
/** Thread control passed between apps (Meta's Business Agent and the like): nothing for the pipeline to do but count it. */
const HANDOVERS_FIELD = 'messaging_handovers';

/** One `message_echoes[]` element; text that is not well-formed Unicode makes it unreadable, as a customer message's would. */
function readEcho(echo: unknown, metadata: Json, receivedAt: string): BusinessEcho {
  const read = toBusinessEcho(requireObject(echo, 'message_echoes[]'), { businessPhoneNumberId: requirePhoneNumberId(metadata.phone_number_id), receivedAt, epochSecondsToIso: (value) => epochSecondsToIso(value, 'message_echoes[].timestamp') }, MAX_TURN_TEXT_LENGTH);
  if (LONE_SURROGATE.test(read.text)) throw new WebhookPayloadError('the echo text is not well-formed Unicode');
  return read;
}

/** The message as a turn; one that names its customer but cannot be read as an unsupported turn; undefined when it names nobody. */
function readTurn(message: Json, metadata: Json, receivedAt: string): InboundTurn | undefined {
  try {
    return toTurn(message, metadata, receivedAt);
  } catch (error) {
    if (!(error instanceof WebhookPayloadError)) throw error;
    return unreadableTurn(message, metadata, receivedAt);
  }
}

/**
 * The senders' WhatsApp profile names by `wa_id` (`value.contacts[]`). A name is what the customer
 * typed into WhatsApp: shown, never trusted, so a contact of the wrong shape is left out rather than a
 * reason to refuse the message.
 */
function profileNamesOf(contacts: unknown): ReadonlyMap<string, string> {
  const names = new Map<string, string>();
  if (!Array.isArray(contacts)) return names;
  for (const contact of contacts) {
    if (!isObject(contact) || !isObject(contact.profile)) continue;
    const name = optionalString(contact.profile.name)?.replace(/\s+/g, ' ').trim();
    if (name === undefined || name === '' || LONE_SURROGATE.test(name)) continue;
    // A customer is keyed by phone, or by the business-scoped user id when Meta omits the phone.
    for (const id of [optionalString(contact.wa_id), optionalString(contact.user_id)]) if (id !== undefined) names.set(id, [...name].slice(0, MAX_PROFILE_NAME_CHARS).join(''));
  }
  return names;
}

function withProfileName(turn: InboundTurn, profileNames: ReadonlyMap<string, string>): InboundTurn {
  const profileName = profileNames.get(turn.customerId);
  return profileName === undefined ? turn : { ...turn, profileName };
}

const TEMPLATE_STATUS_FIELD = 'message_template_status_update';

/**
 * A template status change, when the change is one the pipeline can apply (a known event about a
 * template name and language); anything else is ignored like another field, never a reason to
 * refuse the notification. Meta dates the change by the entry's `time`.
 */
function toTemplateStatusUpdate(value: unknown, entryTime: unknown, receivedAtIso: string): TemplateStatusUpdate | undefined {
  if (!isObject(value)) return undefined;
  const status = statusAfterEvent(value.event);
  if (status === undefined || !isTemplateName(value.message_template_name) || !isLanguageCode(value.message_template_language)) return undefined;
  const reason = typeof value.reason === 'string' && value.reason !== '' && value.reason !== 'NONE' ? value.reason : undefined;
  const at = typeof entryTime === 'number' && Number.isFinite(entryTime) && entryTime > 0 ? new Date(entryTime * 1000).toISOString() : receivedAtIso;
  return { name: value.message_template_name, language: value.message_template_language, status, reason, at };
}
