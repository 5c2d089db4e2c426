import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { SNSEvent } from 'aws-lambda';
import { CUSTOM_METRICS } from '../../lib/contract';
import {
  EndUserMessagingEventError,
  type EndUserMessagingEventSource,
  type EndUserMessagingRefusal,
  parseEndUserMessagingEvent,
  refusalOfEvent,
  refusalOfTopic,
} from '../core/adapters/whatsapp/end-user-messaging-event';
import { type InboundNotificationDependencies, registerInboundNotification } from '../core/application/inbound-notification';
import type { RecordDeliveryStatuses } from '../core/application/record-delivery-status';
import type { RegisterInboundTurns } from '../core/application/register-inbound';
import type { Clock } from '../core/ports/clock';

export interface EndUserMessagingEventsDependencies {
  readonly registerInbound: RegisterInboundTurns;
  readonly recordStatuses: RecordDeliveryStatuses;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** The Meta phone number ids of the linked numbers served; events of any other number are dropped and counted. */
  readonly businessPhoneNumberIds: ReadonlySet<string>;
  /** The topic, account, numbers and WABAs the events must come from; any other event is refused and counted. */
  readonly source: EndUserMessagingEventSource;
  /** Where Meta's template status changes are applied. */
  readonly templates?: InboundNotificationDependencies['templates'];  /** Where echoes and standby messages of a number shared with the WhatsApp Business app are recorded. */
  readonly coexistence?: InboundNotificationDependencies['coexistence'];
}

/**
 * The SNS contract of the End User Messaging inbound function (docs/DESIGN.md#inbound-protocol).
 * SNS invokes it asynchronously: a rejection makes Lambda retry the event, and SNS itself may
 * deliver an event twice — both are Meta's retries by another name, and registration is idempotent.
 * A message that is not a well-formed event is counted and dropped: retrying it cannot help. So is
 * an event that did not come from where this pipeline's events come from (refusalOfEvent): whoever
 * may publish to a topic could otherwise write any customer's messages, an opt-out included.
 */
export function createEndUserMessagingEventsHandler(deps: EndUserMessagingEventsDependencies): (event: SNSEvent) => Promise<void> {
  const { logger, metrics } = deps;
  return async (event) => {
    const refuse = (reason: EndUserMessagingRefusal, snsMessageId: string | undefined) => {
      metrics.addMetric(CUSTOM_METRICS.inboundEnvelopeRefused, MetricUnit.Count, 1);
      logger.warn('eum_event_refused', { outcome: 'refused', reason, snsMessageId });
    };
    for (const record of event.Records ?? []) {
      const snsMessageId = record.Sns?.MessageId;
      const foreignTopic = refusalOfTopic(record.Sns?.TopicArn, deps.source);
      if (foreignTopic) {
        refuse(foreignTopic, snsMessageId);
        continue;
      }
      let parsed;
      try {
        parsed = parseEndUserMessagingEvent(record.Sns?.Message ?? '', deps.clock.now());
      } catch (error) {
        if (!(error instanceof EndUserMessagingEventError)) throw error;
        metrics.addMetric(CUSTOM_METRICS.inboundEnvelopeMalformed, MetricUnit.Count, 1);
        logger.warn('eum_event_dropped', { outcome: 'malformed', snsMessageId, reason: error.message });
        continue;
      }
      const refusal = refusalOfEvent(parsed, deps.source);
      if (refusal) {
        refuse(refusal, snsMessageId);
        continue;
      }
      const summary = await registerInboundNotification(parsed.notification, deps);
      logger.info('eum_event_handled', { outcome: 'accepted', snsMessageId, eventId: parsed.eventId, ...summary });
    }
  };
}
