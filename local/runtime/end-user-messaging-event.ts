import { randomUUID } from 'node:crypto';
import type { SNSEvent } from 'aws-lambda';
import type { EndUserMessagingEventSource } from '../../lambda/core/adapters/whatsapp/end-user-messaging-event';
import { newWamid, textMessageNotification, type CustomerTextMessage, type WebhookDelivery } from './meta-notification';

/** The linked number the local pipeline plays on End User Messaging (the service's id shape). */
export const LOCAL_ORIGINATION_PHONE_NUMBER_ID = 'phone-number-id-0123456789abcdef0123456789abcdef';

/** The account and the event topic of the local deployment, which its events name and its inbound function takes events of. */
export const LOCAL_ACCOUNT_ID = '123456789012';
const REGION = 'us-east-1';
export const LOCAL_EVENT_TOPIC_ARN = `arn:aws:sns:${REGION}:${LOCAL_ACCOUNT_ID}:whatsapp-events`;

/**
 * Where the events below come from, as the construct tells the inbound function: the local topic
 * and account, and `metaPhoneNumberIds` linked as the local number.
 */
export function localEventSource(metaPhoneNumberIds: Iterable<string>): EndUserMessagingEventSource {
  return { topicArn: LOCAL_EVENT_TOPIC_ARN, accountId: LOCAL_ACCOUNT_ID, phoneNumbers: new Map([...metaPhoneNumberIds].map((id) => [id, LOCAL_ORIGINATION_PHONE_NUMBER_ID])) };
}

/**
 * What End User Messaging Social publishes for each `entry[]` element of a Meta notification: the
 * AWS header around the entry, which travels as a JSON string (`whatsAppWebhookEntry`).
 */
export function endUserMessagingEnvelope(entry: object, metaPhoneNumberId: string, wabaId: string, originationPhoneNumberId = LOCAL_ORIGINATION_PHONE_NUMBER_ID): object {
  const resourceId = originationPhoneNumberId.replace(/^phone-number-id-/, '');
  return {
    context: {
      MetaWabaIds: [{ wabaId, arn: `arn:aws:social-messaging:${REGION}:${LOCAL_ACCOUNT_ID}:waba/${resourceId}` }],
      MetaPhoneNumberIds: [{ metaPhoneNumberId, arn: `arn:aws:social-messaging:${REGION}:${LOCAL_ACCOUNT_ID}:phone-number-id/${resourceId}` }],
    },
    whatsAppWebhookEntry: JSON.stringify(entry),
    aws_account_id: LOCAL_ACCOUNT_ID,
    message_timestamp: new Date().toISOString(),
    messageId: randomUUID(),
  };
}

/** The events a Meta notification becomes on the SNS topic: one per entry, each as its own Lambda event. */
export function endUserMessagingEvents(notification: { readonly entry: readonly object[] }): SNSEvent[] {
  return notification.entry.map((entry) => {
    const { id: wabaId, changes } = entry as { id: string; changes: Array<{ value?: { metadata?: { phone_number_id?: string } } }> };
    const metaPhoneNumberId = changes[0]?.value?.metadata?.phone_number_id ?? '';
    return snsEvent(JSON.stringify(endUserMessagingEnvelope(entry, metaPhoneNumberId, wabaId)));
  });
}

/** A Lambda event from an SNS subscription, carrying `message` as SNS delivers it. */
export function snsEvent(message: string, snsMessageId: string = randomUUID()): SNSEvent {
  return {
    Records: [
      {
        EventSource: 'aws:sns',
        EventVersion: '1.0',
        EventSubscriptionArn: `${LOCAL_EVENT_TOPIC_ARN}:${randomUUID()}`,
        Sns: {
          Type: 'Notification',
          MessageId: snsMessageId,
          TopicArn: LOCAL_EVENT_TOPIC_ARN,
          Subject: '',
          Message: message,
          Timestamp: new Date().toISOString(),
          SignatureVersion: '1',
          Signature: '',
          SigningCertUrl: '',
          UnsubscribeUrl: '',
          MessageAttributes: {},
        },
      },
    ],
  };
}

/** Lambda's asynchronous invocation: the first attempt and two retries. */
const ASYNC_INVOKE_ATTEMPTS = 3;

/**
 * Publishes customer messages as End User Messaging does and delivers each event to the inbound
 * function as SNS and Lambda would: an invocation that fails is retried (twice). The status is
 * the webhook's equivalent: 200 when every event was handled, 500 when one failed every attempt.
 */
export async function deliverToEventTopic(handler: (event: SNSEvent) => Promise<void>, messages: readonly CustomerTextMessage[]): Promise<WebhookDelivery> {
  const identified = messages.map((message) => ({ ...message, messageId: message.messageId ?? newWamid() }));
  const messageIds = identified.map((message) => message.messageId);
  return (await publishNotification(handler, textMessageNotification(identified) as { entry: object[] })) ? { status: 200, body: 'ok', messageIds } : { status: 500, body: 'failed', messageIds };
}

/** Publishes any notification of Meta's (messages, statuses) as End User Messaging does; `false` when an event failed every attempt. */
export async function publishNotification(handler: (event: SNSEvent) => Promise<void>, notification: { readonly entry: readonly object[] }): Promise<boolean> {
  for (const event of endUserMessagingEvents(notification)) {
    if (!(await invokeAsynchronously(handler, event))) return false;
  }
  return true;
}

async function invokeAsynchronously(handler: (event: SNSEvent) => Promise<void>, event: SNSEvent): Promise<boolean> {
  for (let attempt = 1; attempt <= ASYNC_INVOKE_ATTEMPTS; attempt++) {
    try {
      await handler(event);
      return true;
    } catch {
      // Lambda retries a failed asynchronous invocation; the last failure parks the event.
    }
  }
  return false;
}
