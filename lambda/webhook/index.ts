// Entry point of the webhook function: composes the inbound use case from its adapters. The HTTP
// contract lives in webhook-http.ts, the behaviour in core/application/register-inbound.ts.
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { RUNTIME_ENV } from '../../lib/pipeline-contract';
import { createDocumentClient, DynamoKit, type DynamoKitObserver } from '../core/adapters/dynamodb/dynamo-kit';
import { DynamoInboundReceiptRepository } from '../core/adapters/dynamodb/inbound-receipt-repository';
import { DynamoMessageRepository } from '../core/adapters/dynamodb/message-repository';
import { DynamoSessionRepository } from '../core/adapters/dynamodb/session-repository';
import { createPowertools, instrumentInvocation } from '../core/adapters/observability/powertools';
import { SecretsManagerCredentialsProvider } from '../core/adapters/secrets/secrets-manager-credentials';
import { SqsTurnDispatcher } from '../core/adapters/sqs/sqs-turn-dispatcher';
import { systemClock } from '../core/adapters/system/system-clock';
import { RegisterInboundTurns } from '../core/application/register-inbound';
import type { Clock } from '../core/ports/clock';
import type { WhatsAppCredentialsProvider } from '../core/ports/credentials';
import { createWebhookHttpHandler } from './webhook-http';

export type WebhookHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/** What the webhook needs from its surroundings; the Lambda reads it from the environment. */
export interface WebhookRuntime {
  readonly tableName: string;
  readonly queueUrl: string;
  readonly credentials: WhatsAppCredentialsProvider;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
  readonly sqsClient?: SQSClient;
  /** Sees every DynamoDB call (benchmarks count calls and consumed capacity with it). */
  readonly kitObserver?: DynamoKitObserver;
}

export function createWebhookHandler(runtime: WebhookRuntime): WebhookHandler {
  const powertools = createPowertools('whatsapp-webhook');
  const logger = runtime.logger ?? powertools.logger;
  const metrics = runtime.metrics ?? powertools.metrics;
  const clock = runtime.clock ?? systemClock;
  const kit = new DynamoKit({
    tableName: runtime.tableName,
    client: createDocumentClient({}, (client) => powertools.tracer.captureAWSv3Client(client)),
    observer: runtime.kitObserver,
  });
  const sqsClient = runtime.sqsClient ?? powertools.tracer.captureAWSv3Client(new SQSClient({}));
  const http = createWebhookHttpHandler({
    credentials: runtime.credentials,
    registerInbound: new RegisterInboundTurns({
      receipts: new DynamoInboundReceiptRepository(kit, clock),
      sessions: new DynamoSessionRepository(kit, clock),
      messages: new DynamoMessageRepository(kit, clock),
      dispatcher: new SqsTurnDispatcher(runtime.queueUrl, sqsClient),
    }),
    clock,
    logger,
    metrics,
  });
  return (event) => instrumentInvocation({ tracer: powertools.tracer, metrics }, 'webhook', () => http(event));
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Environment variable ${name} is not set; the AgentPipeline construct sets it.`);
  return value;
}

let fromEnvironment: WebhookHandler | undefined;

/** The Lambda handler, composed on first use so importing this module has no side effects. */
export const handler: WebhookHandler = (event) => {
  fromEnvironment ??= createWebhookHandler({
    tableName: requiredEnv(RUNTIME_ENV.tableName),
    queueUrl: requiredEnv(RUNTIME_ENV.queueUrl),
    credentials: SecretsManagerCredentialsProvider.fromEnvironment(),
  });
  return fromEnvironment(event);
};
