import { Token } from 'aws-cdk-lib';
import type { AgentPipelineProps } from '../agent-pipeline-props';
import { PIPELINE_DEFAULTS, WHATSAPP_CHANNEL_KINDS } from '../contract';
import type { ChannelSettings } from './whatsapp-channel-binding';

/** End User Messaging's phone number ids; the part after the prefix is the resource name in the ARN. */
const ORIGINATION_ID_PATTERN = /^phone-number-id-([0-9a-zA-Z]{1,100})$/;
const META_PHONE_NUMBER_ID_PATTERN = /^\d{1,20}$/;
const META_API_VERSION_PATTERN = /^v\d+\.\d+$/;

type Fail = (problem: string) => never;

/** Validates the `channel` prop and the Cloud API props; throws through `fail` with what to change. */
export function resolveChannel(fail: Fail, props: AgentPipelineProps): ChannelSettings {
  const phoneNumberIds = resolvePhoneNumberIds(fail, props.phoneNumberIds);
  const options = props.channel?.endUserMessagingOptions;
  if (options === undefined) {
    return {
      kind: WHATSAPP_CHANNEL_KINDS.cloudApi,
      whatsAppSecret: props.whatsAppSecret,
      phoneNumberIds,
      apiBaseUrl: resolveApiBaseUrl(fail, props.whatsAppApiBaseUrl ?? PIPELINE_DEFAULTS.whatsAppApiBaseUrl),
    };
  }
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
  const { wabaIds } = options;
  if (wabaIds !== undefined && (wabaIds.length === 0 || wabaIds.some((id) => Token.isUnresolved(id) || !/^\d{1,20}$/.test(id)))) {
    fail(`wabaIds must list Meta's WhatsApp Business Account ids (digits, the wabaId of the service's events), or be left out to take any WABA of the account; got ${JSON.stringify(wabaIds)}.`);
  }
  return { kind: WHATSAPP_CHANNEL_KINDS.endUserMessaging, phoneNumbers, eventTopic: options.eventTopic, wabaIds: wabaIds && [...new Set(wabaIds)], metaApiVersion };
}

function resolveApiBaseUrl(fail: Fail, url: string): string {
  if (Token.isUnresolved(url)) {
    return url;
  }
  if (!/^https:\/\/[^/\s]+(\/\S*)?$/.test(url)) {
    fail(`whatsAppApiBaseUrl '${url}' must be an https:// URL (the access token travels in its requests).`);
  }
  // The sender appends `/{phone_number_id}/messages`.
  return url.replace(/\/+$/, '');
}

/** Meta phone number ids are digits; anything else would never match a notification. */
function resolvePhoneNumberIds(fail: Fail, ids: readonly string[] | undefined): readonly string[] | undefined {
  if (ids === undefined || Token.isUnresolved(ids)) return ids;
  if (ids.length === 0) fail('phoneNumberIds is empty: list the Meta phone number ids to serve, or leave it out to serve every number of the app.');
  for (const id of ids) {
    if (!Token.isUnresolved(id) && !/^\d{1,20}$/.test(id)) {
      fail(`phoneNumberIds holds '${id}', which is not a Meta phone number id: use the digits shown as "Phone number ID" in the app dashboard.`);
    }
  }
  return [...new Set(ids)];
}
