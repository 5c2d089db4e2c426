import type { SNSEvent } from 'aws-lambda';
import { createEndUserMessagingEventsHandler } from '../eum-inbound/sns-events';
import { composeFunction, type FunctionPorts } from './compose-function';
import type { EndUserMessagingInboundSettings } from './deployment-settings';
import { composeCoexistence, composeRecordStatuses, composeRegisterInbound, composeTemplateStatusUpdates, type TurnQueuePorts } from './turn-queue';

export type EndUserMessagingInboundHandler = (event: SNSEvent) => Promise<void>;

export interface EndUserMessagingInboundPorts extends FunctionPorts, TurnQueuePorts {}

/** The End User Messaging inbound function: the SNS contract (sns-events.ts) on the webhook's inbound use case. */
export function composeEndUserMessagingInbound(settings: EndUserMessagingInboundSettings, ports: EndUserMessagingInboundPorts = {}): EndUserMessagingInboundHandler {
  const composed = composeFunction('eum-inbound', settings, ports);
  const events = createEndUserMessagingEventsHandler({
    registerInbound: composeRegisterInbound(settings, composed, ports),
    recordStatuses: composeRecordStatuses(composed),
    templates: composeTemplateStatusUpdates(settings, composed),
    coexistence: composeCoexistence(composed),
    clock: composed.clock,
    logger: composed.logger,
    metrics: composed.metrics,
    businessPhoneNumberIds: new Set(settings.businessPhoneNumberIds),
    source: settings.eventSource,
  });
  return (event) => composed.instrument(() => events(event));
}
