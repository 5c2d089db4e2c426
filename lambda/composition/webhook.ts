import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { RequestTimeouts } from '../core/adapters/aws/request-timeouts';
import { type SenderCompositionOptions, whatsAppSecretReader } from '../core/adapters/whatsapp/whatsapp-channel';
import { createWebhookHttpHandler, type WebhookEvent } from '../webhook/webhook-http';
import { composeFunction, type FunctionPorts } from './compose-function';
import type { WebhookSettings } from './deployment-settings';
import { composeCoexistence, composeRecordStatuses, composeRegisterInbound, composeTemplateStatusUpdates, type TurnQueuePorts } from './turn-queue';

export type WebhookHandler = (event: WebhookEvent) => Promise<APIGatewayProxyStructuredResultV2>;

export interface WebhookPorts extends FunctionPorts, TurnQueuePorts, Pick<SenderCompositionOptions, 'credentials'> {
  /** Bounds on each table and queue call. @default WEBHOOK_REQUEST_TIMEOUTS */
  readonly requestTimeouts?: RequestTimeouts;
}

/**
 * Each table and queue call of the webhook gives up after about 5 s (two attempts of 2.5 s, well
 * inside its 10 s timeout): a stalled dependency is a quick 5xx, which Meta retries, instead of a
 * request hanging until the function times out. Registration is idempotent, so whatever a cut-off
 * call did is found again.
 */
export const WEBHOOK_REQUEST_TIMEOUTS: RequestTimeouts = { connectionTimeoutMs: 1_000, requestTimeoutMs: 2_500, maxAttempts: 2 };

/** The webhook: Meta's HTTP contract (webhook-http.ts) on the inbound use case. */
export function composeWebhook(settings: WebhookSettings, ports: WebhookPorts = {}): WebhookHandler {
  const requestTimeouts = ports.requestTimeouts ?? WEBHOOK_REQUEST_TIMEOUTS;
  const composed = composeFunction('webhook', settings, ports, { requestTimeouts });
  const http = createWebhookHttpHandler({
    credentials: ports.credentials ?? whatsAppSecretReader(settings.whatsAppSecretArn, ports),
    registerInbound: composeRegisterInbound(settings, composed, ports, requestTimeouts),
    recordStatuses: composeRecordStatuses(composed),
    templates: composeTemplateStatusUpdates(settings, composed),
    coexistence: composeCoexistence(composed),
    clock: composed.clock,
    logger: composed.logger,
    metrics: composed.metrics,
    businessPhoneNumberIds: settings.businessPhoneNumberIds && new Set(settings.businessPhoneNumberIds),
  });
  return (event) => composed.instrument(() => http(event));
}
