import { DEPLOYMENT_DEFAULTS } from '../../lambda/composition/deployment-settings';
import type { EndUserMessagingInboundSettings, WebhookSettings } from '../../lambda/composition/deployment-settings';
import { localEventSource } from '../../local/runtime/end-user-messaging-event';

/** Names the WhatsApp secret in settings; never read: the tests hand the functions its values. */
export const TEST_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:whatsapp-test';

/** A webhook's settings as a deployment that chose nothing gets them, on this table and queue. */
export function webhookSettings(tableName: string, turnQueueUrl: string, overrides: Partial<WebhookSettings> = {}): WebhookSettings {
  return { ...DEPLOYMENT_DEFAULTS, tableName, turnQueueUrl, whatsAppSecretArn: TEST_SECRET_ARN, ...overrides };
}

/** The End User Messaging inbound function's settings, serving these linked numbers. */
export function endUserMessagingInboundSettings(
  tableName: string,
  turnQueueUrl: string,
  businessPhoneNumberIds: readonly string[],
  eventSource: Partial<EndUserMessagingInboundSettings['eventSource']> = {},
): EndUserMessagingInboundSettings {
  return { ...DEPLOYMENT_DEFAULTS, tableName, turnQueueUrl, businessPhoneNumberIds, eventSource: { ...localEventSource(businessPhoneNumberIds), ...eventSource } };
}
