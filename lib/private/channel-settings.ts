import { Token } from 'aws-cdk-lib';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { AgentPipelineProps } from '../agent-pipeline-props';
import { PIPELINE_DEFAULTS } from '../contract';

/** End User Messaging's phone number ids; the part after the prefix is the resource name in the ARN. */
const ORIGINATION_ID_PATTERN = /^phone-number-id-([0-9a-zA-Z]{1,100})$/;
const META_PHONE_NUMBER_ID_PATTERN = /^\d{1,20}$/;
const META_API_VERSION_PATTERN = /^v\d+\.\d+$/;

/** The End User Messaging channel, validated; `undefined` settings mean the Cloud API. */
export interface EndUserMessagingSettings {
  /** Meta phone number id → End User Messaging id, in the order given. */
  readonly phoneNumbers: ReadonlyArray<{ readonly id: string; readonly resourceName: string; readonly metaPhoneNumberId: string }>;
  readonly eventTopic?: sns.ITopic;
  readonly metaApiVersion: string;
}

/** Validates the `channel` prop; throws through `fail` with what to change. */
export function resolveChannel(fail: (problem: string) => never, props: AgentPipelineProps): EndUserMessagingSettings | undefined {
  const options = props.channel?.endUserMessagingOptions;
  if (options === undefined) return undefined;
  for (const cloudApiOnly of ['whatsAppSecret', 'phoneNumberIds', 'whatsAppApiBaseUrl'] as const) {
    if (props[cloudApiOnly] !== undefined) {
      fail(`${cloudApiOnly} belongs to the Cloud API channel; with WhatsAppChannel.endUserMessaging() leave it out (the numbers come from channel phoneNumbers).`);
    }
  }
  if (!options.phoneNumbers || options.phoneNumbers.length === 0) {
    fail('WhatsAppChannel.endUserMessaging() needs at least one phone number: { id: "phone-number-id-…", metaPhoneNumberId: "…" }.');
  }
  const seen = new Set<string>();
  const phoneNumbers = options.phoneNumbers.map(({ id, metaPhoneNumberId }) => {
    const match = ORIGINATION_ID_PATTERN.exec(id);
    if (Token.isUnresolved(id) || !match) fail(`End User Messaging phone number id '${id}' must look like 'phone-number-id-' followed by letters and digits (the id in the End User Messaging console, not Meta's).`);
    if (Token.isUnresolved(metaPhoneNumberId) || !META_PHONE_NUMBER_ID_PATTERN.test(metaPhoneNumberId)) {
      fail(`metaPhoneNumberId '${metaPhoneNumberId}' of ${id} must be Meta's phone number id (digits only).`);
    }
    for (const key of [id, metaPhoneNumberId]) {
      if (seen.has(key)) fail(`End User Messaging phone number '${key}' is listed twice.`);
      seen.add(key);
    }
    return { id, resourceName: match![1], metaPhoneNumberId };
  });
  const metaApiVersion = options.metaApiVersion ?? PIPELINE_DEFAULTS.endUserMessagingMetaApiVersion;
  if (!META_API_VERSION_PATTERN.test(metaApiVersion)) fail(`metaApiVersion '${metaApiVersion}' must look like 'v20.0'.`);
  return { phoneNumbers, eventTopic: options.eventTopic, metaApiVersion };
}

/** `metaPhoneNumberId=phone-number-id-…` pairs, as the functions read them. */
export function endUserMessagingPhoneNumbersVariable(settings: EndUserMessagingSettings): string {
  return settings.phoneNumbers.map(({ id, metaPhoneNumberId }) => `${metaPhoneNumberId}=${id}`).join(',');
}
