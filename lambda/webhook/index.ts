// Entry point of the webhook function: composes the inbound use case from its adapters. The HTTP
// contract lives in webhook-http.ts, the behaviour in core/application/register-inbound.ts.
import { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { inboundRepositories } from '../core/adapters/dynamodb/dynamo-repositories';
import { composeFunction, type FunctionRuntime } from '../core/adapters/function-runtime';
import { SecretsManagerCredentialsProvider } from '../core/adapters/secrets/secrets-manager-credentials';
import { SqsTurnDispatcher } from '../core/adapters/sqs/sqs-turn-dispatcher';
import { RegisterInboundTurns } from '../core/application/register-inbound';
import type { WhatsAppCredentialsProvider } from '../core/ports/credentials';
import { readWebhookConfig } from './runtime-config';
import { createWebhookHttpHandler } from './webhook-http';

export type WebhookHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/** What the webhook needs from its surroundings; the Lambda reads it from the environment. */
export interface WebhookRuntime extends FunctionRuntime {
  readonly turnQueueUrl: string;
  readonly credentials: WhatsAppCredentialsProvider;
  readonly sqsClient?: SQSClient;
  /** The business numbers served; messages to any other number of the Meta app are dropped. Default: every number. */
  readonly businessPhoneNumberIds?: readonly string[];
}

export function createWebhookHandler(runtime: WebhookRuntime): WebhookHandler {
  const composed = composeFunction('webhook', runtime);
  const sqsClient = runtime.sqsClient ?? composed.powertools.tracer.captureAWSv3Client(new SQSClient({}));
  const http = createWebhookHttpHandler({
    credentials: runtime.credentials,
    registerInbound: new RegisterInboundTurns({ ...inboundRepositories(composed.table), dispatcher: new SqsTurnDispatcher(runtime.turnQueueUrl, sqsClient) }),
    clock: composed.clock,
    logger: composed.logger,
    metrics: composed.metrics,
    businessPhoneNumberIds: runtime.businessPhoneNumberIds && new Set(runtime.businessPhoneNumberIds),
  });
  return (event) => composed.instrument(() => http(event));
}

let fromEnvironment: WebhookHandler | undefined;

/** The Lambda handler, composed on first use so importing this module has no side effects. */
export const handler: WebhookHandler = (event) => {
  if (fromEnvironment === undefined) {
    const config = readWebhookConfig();
    fromEnvironment = createWebhookHandler({
      tableName: config.tableName,
      turnQueueUrl: config.turnQueueUrl,
      credentials: new SecretsManagerCredentialsProvider({ secretId: config.whatsAppSecretArn }),
      businessPhoneNumberIds: config.businessPhoneNumberIds,
      observability: config.observability,
    });
  }
  return fromEnvironment(event);
};
