import { randomUUID } from 'node:crypto';
import type { SNSEvent } from 'aws-lambda';

/** The linked number the local pipeline plays on End User Messaging (the service's id shape). */
export const LOCAL_ORIGINATION_PHONE_NUMBER_ID = 'phone-number-id-0123456789abcdef0123456789abcdef';

const ACCOUNT_ID = '123456789012';
const REGION = 'us-east-1';
const TOPIC_ARN = `arn:aws:sns:${REGION}:${ACCOUNT_ID}:whatsapp-events`;

/**
 * What End User Messaging Social publishes for each `entry[]` element of a Meta notification: the
 * AWS header around the entry, which travels as a JSON string (`whatsAppWebhookEntry`).
 */
export function endUserMessagingEnvelope(entry: object, metaPhoneNumberId: string, wabaId: string, originationPhoneNumberId = LOCAL_ORIGINATION_PHONE_NUMBER_ID): object {
  const resourceId = originationPhoneNumberId.replace(/^phone-number-id-/, '');
  return {
    context: {
      MetaWabaIds: [{ wabaId, arn: `arn:aws:social-messaging:${REGION}:${ACCOUNT_ID}:waba/${resourceId}` }],
      MetaPhoneNumberIds: [{ metaPhoneNumberId, arn: `arn:aws:social-messaging:${REGION}:${ACCOUNT_ID}:phone-number-id/${resourceId}` }],
    },
    whatsAppWebhookEntry: JSON.stringify(entry),
    aws_account_id: ACCOUNT_ID,
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
        EventSubscriptionArn: `${TOPIC_ARN}:${randomUUID()}`,
        Sns: {
          Type: 'Notification',
          MessageId: snsMessageId,
          TopicArn: TOPIC_ARN,
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
