import { PipelineError } from '../../domain/errors';
import { parseWebhookPayload, WebhookPayloadError, type ParsedWebhook } from './webhook-payload';

/** The SNS message is not an End User Messaging Social WhatsApp event, or its Meta entry is malformed. */
export class EndUserMessagingEventError extends PipelineError {
  override readonly name = 'EndUserMessagingEventError';
  override readonly code = 'invalid_end_user_messaging_event';
  override readonly retryable = false;
}

/** A WABA or a phone number as the service names it in an event's `context`: Meta's id and the service's ARN. */
export interface EndUserMessagingResource {
  readonly metaId: string;
  readonly arn: string;
}

export interface EndUserMessagingEvent {
  /** The service's id of the event (`messageId` of the envelope), for logs. */
  readonly eventId?: string;
  /** The account the service says it publishes for (`aws_account_id`). */
  readonly accountId: string;
  /** The WABAs the event belongs to (`context.MetaWabaIds`). */
  readonly wabas: readonly EndUserMessagingResource[];
  /** The linked numbers it concerns (`context.MetaPhoneNumberIds`); none for an event of the WABA itself. */
  readonly phoneNumbers: readonly EndUserMessagingResource[];
  /** What the Meta entry inside says of itself: its WABA (`id`) and the business numbers of its changes. */
  readonly entry: { readonly wabaId: string; readonly phoneNumberIds: readonly string[] };
  /** Meta's notification, normalised exactly as the webhook normalises a Cloud API POST. */
  readonly notification: ParsedWebhook;
}

/**
 * Unwraps one event End User Messaging Social publishes to the WABA's event destination: an AWS
 * header (`context` with the WABA and phone number ids, `aws_account_id`, `message_timestamp`,
 * `messageId`) around `whatsAppWebhookEntry`, one element of Meta's `entry[]` as a JSON string.
 * The entry goes through the webhook's own parser, so both channels yield identical turns.
 */
export function parseEndUserMessagingEvent(snsMessage: string, receivedAt: Date): EndUserMessagingEvent {
  const envelope = parseJsonObject(snsMessage, 'the SNS message');
  const entryText = envelope.whatsAppWebhookEntry;
  if (typeof entryText !== 'string') throw new EndUserMessagingEventError('whatsAppWebhookEntry must be a JSON string');
  const entry = parseJsonObject(entryText, 'whatsAppWebhookEntry');
  let notification: ParsedWebhook;
  try {
    notification = parseWebhookPayload(JSON.stringify({ object: 'whatsapp_business_account', entry: [entry] }), receivedAt);
  } catch (error) {
    if (error instanceof WebhookPayloadError) throw new EndUserMessagingEventError(`whatsAppWebhookEntry: ${error.message}`);
    throw error;
  }
  if (typeof envelope.aws_account_id !== 'string') throw new EndUserMessagingEventError('aws_account_id must be a string');
  const context = envelope.context;
  if (typeof context !== 'object' || context === null || Array.isArray(context)) throw new EndUserMessagingEventError('context must be an object');
  const { MetaWabaIds: wabas, MetaPhoneNumberIds: phoneNumbers } = context as Record<string, unknown>;
  return {
    eventId: typeof envelope.messageId === 'string' ? envelope.messageId : undefined,
    accountId: envelope.aws_account_id,
    wabas: resources(wabas, 'MetaWabaIds', 'wabaId'),
    phoneNumbers: phoneNumbers === undefined ? [] : resources(phoneNumbers, 'MetaPhoneNumberIds', 'metaPhoneNumberId'),
    entry: { wabaId: String(entry.id), phoneNumberIds: phoneNumberIdsOf(entry.changes) },
    notification,
  };
}

/** Where the events of this pipeline come from: anything else is not believed. */
export interface EndUserMessagingEventSource {
  /** The event topic the inbound function is subscribed to. */
  readonly topicArn: string;
  /** The deployment's account: the service publishes the events of the WABAs linked to it. */
  readonly accountId: string;
  /** Meta phone number id → the service's id (`phone-number-id-…`) of every linked number this pipeline serves. */
  readonly phoneNumbers: ReadonlyMap<string, string>;
  /** Meta's ids of the WABAs whose events are taken; undefined: any WABA of the account (the numbers then decide). */
  readonly wabaIds?: ReadonlySet<string>;
}

/** Why an event is refused: it did not come from the source, or its header and its entry disagree. */
export type EndUserMessagingRefusal = 'foreign_topic' | 'foreign_account' | 'foreign_waba' | 'foreign_phone_number' | 'entry_mismatch';

/** The SNS topic a delivery came from, checked before its message is even parsed. */
export function refusalOfTopic(topicArn: string | undefined, source: EndUserMessagingEventSource): EndUserMessagingRefusal | undefined {
  return topicArn === source.topicArn ? undefined : 'foreign_topic';
}

/**
 * Whether an event may be believed. Refused: another account's event, a WABA or number held by
 * another account, a WABA outside `wabaIds`, a linked number named by a resource that is not its
 * own, or a Meta entry that claims another WABA or numbers than its header. A number that is simply
 * not this pipeline's (another pipeline on the same WABA) is no refusal: registration drops it.
 */
export function refusalOfEvent(event: EndUserMessagingEvent, source: EndUserMessagingEventSource): EndUserMessagingRefusal | undefined {
  if (event.accountId !== source.accountId) return 'foreign_account';
  if (event.wabas.length === 0 || event.wabas.some((waba) => accountOf(waba.arn) !== source.accountId || (source.wabaIds !== undefined && !source.wabaIds.has(waba.metaId)))) {
    return 'foreign_waba';
  }
  const misnamed = (number: EndUserMessagingResource) => {
    const linked = source.phoneNumbers.get(number.metaId);
    return accountOf(number.arn) !== source.accountId || (linked !== undefined && resourceOf(number.arn) !== `phone-number-id/${linked.replace(/^phone-number-id-/, '')}`);
  };
  if (event.phoneNumbers.some(misnamed)) return 'foreign_phone_number';
  const headerNumbers = new Set(event.phoneNumbers.map((number) => number.metaId));
  if (!event.wabas.some((waba) => waba.metaId === event.entry.wabaId) || event.entry.phoneNumberIds.some((id) => !headerNumbers.has(id))) return 'entry_mismatch';
  return undefined;
}

/** `arn:partition:social-messaging:region:account:resource`: the account, when the ARN is the service's. */
function accountOf(arn: string): string | undefined {
  const [prefix, , service, , account] = arn.split(':');
  return prefix === 'arn' && service === 'social-messaging' ? account : undefined;
}

function resourceOf(arn: string): string {
  return arn.split(':').slice(5).join(':');
}

function resources(value: unknown, field: string, idField: string): EndUserMessagingResource[] {
  if (!Array.isArray(value)) throw new EndUserMessagingEventError(`context.${field} must be a list`);
  return value.map((item: unknown) => {
    const { [idField]: metaId, arn } = (item ?? {}) as Record<string, unknown>;
    if (typeof metaId !== 'string' || typeof arn !== 'string') throw new EndUserMessagingEventError(`context.${field} holds an entry without ${idField} and arn`);
    return { metaId, arn };
  });
}

/** The business numbers the entry's changes name (`value.metadata.phone_number_id`), whatever shape the rest has. */
function phoneNumberIdsOf(changes: unknown): string[] {
  const named = (Array.isArray(changes) ? changes : []).flatMap((change: unknown) => {
    const id = (change as { value?: { metadata?: { phone_number_id?: unknown } } } | null)?.value?.metadata?.phone_number_id;
    return id === undefined || id === null ? [] : [String(id)];
  });
  return [...new Set(named)];
}

function parseJsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new EndUserMessagingEventError(`${what} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new EndUserMessagingEventError(`${what} is not a JSON object`);
  return value as Record<string, unknown>;
}
