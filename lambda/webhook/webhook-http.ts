import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { CUSTOM_METRICS } from '../../lib/contract';
import type { RecordDeliveryStatuses } from '../core/application/record-delivery-status';
import type { RegisterInboundTurns } from '../core/application/register-inbound';
import { type InboundNotificationDependencies, registerInboundNotification } from '../core/application/inbound-notification';
import { parseWebhookPayload, WebhookPayloadError } from '../core/adapters/whatsapp/webhook-payload';
import { sameSecret, verifySignatureWithAnySecret } from '../core/adapters/whatsapp/webhook-signature';
import { errorSummary } from '../core/adapters/observability/error-summary';
import type { WhatsAppCredentialsProvider } from '../core/ports/credentials';
import type { Clock } from '../core/ports/clock';

/** Meta documents notification payloads of up to 3 MB; anything larger is not from Meta. */
export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Meta's challenge is a number; echoing only safe characters keeps the endpoint from reflecting markup. */
const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;

export interface WebhookHttpDependencies {
  readonly credentials: WhatsAppCredentialsProvider;
  readonly registerInbound: RegisterInboundTurns;
  readonly recordStatuses: RecordDeliveryStatuses;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** @default DEFAULT_MAX_BODY_BYTES */
  readonly maxBodyBytes?: number;
  /** The business numbers this pipeline answers for; other numbers' messages are dropped and counted. @default every number */
  readonly businessPhoneNumberIds?: ReadonlySet<string>;
  /** Where Meta's template status changes are applied. */
  readonly templates?: InboundNotificationDependencies['templates'];  /** Where echoes and standby messages of a number shared with the WhatsApp Business app are recorded. */
  readonly coexistence?: InboundNotificationDependencies['coexistence'];
}

type Response = APIGatewayProxyStructuredResultV2;

/**
 * What reaches the handler: a Function URL's payload v2, or an API Gateway REST API's proxy event
 * (`WebhookFrontDoor.apiGateway()`, whose API treats every media type as binary, so it base64-encodes every body). Both
 * carry the body as sent (`isBase64Encoded`), the headers and the query; they differ in where the
 * method is and in the headers' case.
 */
export type WebhookEvent = APIGatewayProxyEventV2 | APIGatewayProxyEvent;

function methodOf(event: WebhookEvent): string {
  return ('httpMethod' in event ? event.httpMethod : event.requestContext?.http?.method) ?? 'POST';
}

function reply(statusCode: number, body: string): Response {
  return { statusCode, headers: { 'content-type': 'text/plain; charset=utf-8' }, body };
}

/** Function URLs lower-case header names; API Gateway's REST APIs (and the local runtime) may not. */
function header(event: WebhookEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}

function rawBodyOf(event: WebhookEvent): Buffer {
  return Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
}

/** JSON is UTF-8 (RFC 8259): bytes that are not would otherwise reach the history as U+FFFD. */
function decodeUtf8(rawBody: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(rawBody);
  } catch {
    throw new WebhookPayloadError('body is not valid UTF-8');
  }
}

/**
 * The webhook's HTTP contract (docs/DESIGN.md#inbound-protocol): verification handshake, signed notifications, and answers
 * Meta's retry policy understands — 200 once every turn is durable and dispatched, 4xx for requests
 * that can never succeed (unsigned, too large, a wrong method), 5xx only when a retry can finish the
 * job. A signed notification is never refused for its content: what cannot be read is counted.
 */
export function createWebhookHttpHandler(deps: WebhookHttpDependencies): (event: WebhookEvent) => Promise<Response> {
  const maxBodyBytes = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const { logger, metrics } = deps;

  const reject = (statusCode: number, reason: string): Response => {
    metrics.addMetric(CUSTOM_METRICS.webhookRejected, MetricUnit.Count, 1);
    logger.warn('webhook_rejected', { outcome: 'rejected', statusCode, reason });
    return reply(statusCode, reason);
  };

  async function verifySubscription(event: WebhookEvent): Promise<Response> {
    const query = event.queryStringParameters ?? {};
    const { verifyToken } = await deps.credentials.get();
    const challenge = query['hub.challenge'];
    if (query['hub.mode'] !== 'subscribe' || !sameSecret(query['hub.verify_token'], verifyToken)) return reject(403, 'verification refused');
    if (challenge === undefined || !CHALLENGE_PATTERN.test(challenge)) return reject(400, 'invalid hub.challenge');
    logger.info('webhook_verified', { outcome: 'verified' });
    return reply(200, challenge);
  }

  async function receiveNotification(event: WebhookEvent): Promise<Response> {
    const declaredLength = event.body === undefined || event.body === null ? 0 : event.isBase64Encoded ? Math.floor((event.body.length * 3) / 4) : Buffer.byteLength(event.body);
    if (declaredLength > maxBodyBytes) return reject(413, 'payload too large');
    const rawBody = rawBodyOf(event);
    if (rawBody.length > maxBodyBytes) return reject(413, 'payload too large');

    const { appSecret, previousAppSecret } = await deps.credentials.get();
    const verdict = verifySignatureWithAnySecret(rawBody, header(event, 'x-hub-signature-256'), [appSecret, previousAppSecret]);
    if (verdict !== 'valid') {
      // Its own metric: a wrong or unfilled app secret refuses every Meta delivery and must page someone.
      metrics.addMetric(CUSTOM_METRICS.webhookSignatureRejected, MetricUnit.Count, 1);
      return verdict === 'missing' ? reject(401, 'missing signature') : reject(403, 'invalid signature');
    }

    let parsed;
    try {
      parsed = parseWebhookPayload(decodeUtf8(rawBody), deps.clock.now());
    } catch (error) {
      if (!(error instanceof WebhookPayloadError)) throw error;
      // Meta signed it: refusing it would only make Meta send it again for days. Counted, logged without its content, dropped.
      metrics.addMetric(CUSTOM_METRICS.inboundUnreadable, MetricUnit.Count, 1);
      logger.warn('webhook_unreadable', { outcome: 'unreadable', reason: error.message });
      return reply(200, 'ok');
    }

    const summary = await registerInboundNotification(parsed, deps);
    logger.info('webhook_handled', { outcome: 'accepted', ...summary });
    return reply(200, 'ok');
  }

  return async (event) => {
    const method = methodOf(event);
    try {
      if (method === 'GET') return await verifySubscription(event);
      if (method === 'POST') return await receiveNotification(event);
      return reject(405, 'method not allowed');
    } catch (error) {
      // Anything unexpected (DynamoDB or SQS unavailable, secrets unreadable) is retryable: Meta
      // retries non-200 answers, and every step of registration is idempotent.
      // The function itself succeeds, so its Errors metric never moves: this metric carries the alarm.
      metrics.addMetric(CUSTOM_METRICS.webhookServerError, MetricUnit.Count, 1);
      logger.error('webhook_failed', { outcome: 'failed', ...errorSummary(error) });
      return reply(500, 'temporarily unavailable');
    }
  };
}
