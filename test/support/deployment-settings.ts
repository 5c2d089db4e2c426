import { AGENT_BACKEND_KINDS, type DeploymentOptions, type DeploymentPlan, PIPELINE_DEFAULTS, type PipelineFunction, WHATSAPP_CHANNEL_KINDS, writeDeploymentPlan } from '../../lib/contract';
import { stagedFunctionAsset } from '../../lib/private/function-assets';
import type { EndUserMessagingInboundSettings, OperatorSettings, WebhookSettings } from '../../lambda/composition/deployment-settings';
import { readEndUserMessagingInboundSettings, readOperatorSettings, readWebhookSettings } from '../../lambda/composition/read-settings';
import { LOCAL_ACCOUNT_ID, LOCAL_EVENT_TOPIC_ARN, LOCAL_ORIGINATION_PHONE_NUMBER_ID } from '../../local/runtime/end-user-messaging-event';

// The settings the suites hand the functions they compose themselves: what the plan's writer makes
// of a deployment that chose nothing else, read by the functions' own readers.

/** Names the WhatsApp secret in settings; never read: the tests hand the functions its values. */
export const TEST_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:whatsapp-test';

/** Nothing listens here: what names it is never reached. */
const UNUSED_ENDPOINT = 'http://127.0.0.1:9';

/** A deployment that chose nothing but `overrides`, on this table and turn queue: the Cloud API and the scripted agent. */
export function testDeployment(tableName: string, turnQueueUrl: string, overrides: Partial<DeploymentOptions> = {}): DeploymentOptions {
  return {
    resources: { tableName, turnQueueUrl, deadLetterQueueUrl: `${UNUSED_ENDPOINT}/dead-letters.fifo` },
    observability: { serviceName: tableName, metricsNamespace: PIPELINE_DEFAULTS.serviceName, logLevel: 'SILENT', tracing: false },
    channel: { kind: WHATSAPP_CHANNEL_KINDS.cloudApi, whatsAppSecretArn: TEST_SECRET_ARN, apiBaseUrl: UNUSED_ENDPOINT },
    agent: { backend: AGENT_BACKEND_KINDS.scripted },
    ...overrides,
  };
}

/** What each function of that deployment is told. */
export function testPlan(tableName: string, turnQueueUrl: string, overrides: Partial<DeploymentOptions> = {}): DeploymentPlan {
  return writeDeploymentPlan(testDeployment(tableName, turnQueueUrl, overrides));
}

/** A webhook's settings as a deployment that chose nothing gets them, on this table and queue. */
export function webhookSettings(tableName: string, turnQueueUrl: string, overrides: Partial<WebhookSettings> = {}): WebhookSettings {
  return { ...readWebhookSettings(testPlan(tableName, turnQueueUrl).webhook!), ...overrides };
}

/** The End User Messaging inbound function's settings, serving these linked numbers. */
export function endUserMessagingInboundSettings(
  tableName: string,
  turnQueueUrl: string,
  businessPhoneNumberIds: readonly string[],
  eventSource: Partial<EndUserMessagingInboundSettings['eventSource']> = {},
): EndUserMessagingInboundSettings {
  const plan = testPlan(tableName, turnQueueUrl, {
    channel: {
      kind: WHATSAPP_CHANNEL_KINDS.endUserMessaging,
      phoneNumbers: businessPhoneNumberIds.map((metaPhoneNumberId) => ({ metaPhoneNumberId, originationPhoneNumberId: LOCAL_ORIGINATION_PHONE_NUMBER_ID })),
      eventTopicArn: LOCAL_EVENT_TOPIC_ARN,
      accountId: LOCAL_ACCOUNT_ID,
    },
  });
  const settings = readEndUserMessagingInboundSettings(plan['eum-inbound']!);
  return { ...settings, eventSource: { ...settings.eventSource, ...eventSource } };
}

/** The operator function's settings of a deployment with these admins, on this table. */
export function operatorSettings(tableName: string, adminPhoneNumbers: readonly string[]): OperatorSettings {
  const plan = testPlan(tableName, `${UNUSED_ENDPOINT}/turns.fifo`, { operatorPlane: { adminPhoneNumbers, consoleUrl: UNUSED_ENDPOINT, evaluatorFunctionName: 'test-evaluator' } });
  return readOperatorSettings(plan.operator!);
}

/** Function `fn`'s asset as the construct stages it for the plan (its bundle and its settings document), and the environment the construct sets. */
export function stagedFunction(fn: PipelineFunction, plan: DeploymentPlan): { readonly folder: string; readonly environment: Readonly<Record<string, string>> } {
  const told = plan[fn];
  if (told === undefined) throw new Error(`The plan has no ${fn} function`);
  return { folder: stagedFunctionAsset(fn, told.document), environment: told.environment };
}
