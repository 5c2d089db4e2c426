import { PipelineError } from '../../domain/errors';
import { parseWebhookPayload, WebhookPayloadError, type ParsedWebhook } from './webhook-payload';

/** The SNS message is not an End User Messaging Social WhatsApp event, or its Meta entry is malformed. */
export class EndUserMessagingEventError extends PipelineError {
  override readonly name = 'EndUserMessagingEventError';
  override readonly code = 'invalid_end_user_messaging_event';
  override readonly retryable = false;
}

export interface EndUserMessagingEvent {
  /** The service's id of the event (`messageId` of the envelope), for logs. */
  readonly eventId?: string;
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
  try {
    const notification = parseWebhookPayload(JSON.stringify({ object: 'whatsapp_business_account', entry: [entry] }), receivedAt);
    return { eventId: typeof envelope.messageId === 'string' ? envelope.messageId : undefined, notification };
  } catch (error) {
    if (error instanceof WebhookPayloadError) throw new EndUserMessagingEventError(`whatsAppWebhookEntry: ${error.message}`);
    throw error;
  }
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
