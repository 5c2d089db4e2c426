import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type SenderCompositionOptions, whatsAppSecretReader } from '../core/adapters/whatsapp/whatsapp-channel';
import { createWebhookHttpHandler } from '../webhook/webhook-http';
import { messageTemplates } from '../core/adapters/dynamodb/dynamo-repositories';
import { MessageTemplates } from '../core/application/message-templates';
import { composeFunction, type FunctionPorts } from './compose-function';
import type { WebhookSettings } from './deployment-settings';
import { composeRegisterInbound, type TurnQueuePorts } from './turn-queue';

export type WebhookHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

export interface WebhookPorts extends FunctionPorts, TurnQueuePorts, Pick<SenderCompositionOptions, 'credentials'> {}

/** The webhook: Meta's HTTP contract (webhook-http.ts) on the inbound use case. */
export function composeWebhook(settings: WebhookSettings, ports: WebhookPorts = {}): WebhookHandler {
  const composed = composeFunction('webhook', settings, ports);
  const http = createWebhookHttpHandler({
    credentials: ports.credentials ?? whatsAppSecretReader(settings.whatsAppSecretArn, ports),
    registerInbound: composeRegisterInbound(settings.turnQueueUrl, composed, ports),
    templates: settings.applyTemplateStatusUpdates ? new MessageTemplates({ templates: messageTemplates(composed.table), clock: composed.clock }) : undefined,
    clock: composed.clock,
    logger: composed.logger,
    metrics: composed.metrics,
    businessPhoneNumberIds: settings.businessPhoneNumberIds && new Set(settings.businessPhoneNumberIds),
  });
  return (event) => composed.instrument(() => http(event));
}
