// What the benchmarks that drive the handlers in this process share: the local servers, the fake
// Graph API, a fresh table and turn queue, and the two events a deployment hands the functions.
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { AGENT_BACKEND_KINDS, type DeploymentOptions, physicalNames, PIPELINE_DEFAULTS, WHATSAPP_CHANNEL_KINDS, writeDeploymentPlan } from '../lib/contract';
import type { OrchestratorSettings, WebhookSettings } from '../lambda/composition/deployment-settings';
import { readOrchestratorSettings, readWebhookSettings } from '../lambda/composition/read-settings';
import { encodeDispatchMessage } from '../lambda/core/adapters/sqs/dispatch-message';
import { signMetaPayload } from '../lambda/core/adapters/whatsapp/webhook-signature';
import type { WhatsAppCredentials } from '../lambda/core/ports/credentials';
import type { OrchestratorHandler } from '../lambda/composition/orchestrator';
import type { WebhookHandler } from '../lambda/composition/webhook';
import { FakeGraphApi } from '../local/fake-whatsapp/fake-graph-api';
import { createAgentTable, createTurnQueues } from '../local/servers/local-resources';
import { startDynamoDbLocal, startSqsEmulator } from '../local/servers/local-servers';
import { ANSWER_AT_ONCE } from './measurement';

export interface InProcessPipeline {
  readonly fake: FakeGraphApi;
  readonly tableName: string;
  readonly turnQueueUrl: string;
  /** The app secret the webhook verifies and the token the fake Graph API accepts. */
  readonly credentials: WhatsAppCredentials;
}

/**
 * Starts DynamoDB Local, the SQS emulator and the fake Graph API, points the SDK's clients at them
 * (every client created in `body` uses them), creates a table and turn queue named after `prefix`,
 * runs `body` and stops everything, whatever happened.
 */
export async function withInProcessPipeline<T>(prefix: string, body: (pipeline: InProcessPipeline) => Promise<T>): Promise<T> {
  const [dynamodb, sqs] = await Promise.all([startDynamoDbLocal(), startSqsEmulator()]);
  const fake = await FakeGraphApi.start();
  try {
    // The SQS emulator serves S3 too: the media bucket of the benchmarks that turn media on.
    Object.assign(process.env, { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_ENDPOINT_URL_DYNAMODB: dynamodb.endpoint, AWS_ENDPOINT_URL_SQS: sqs.endpoint, AWS_ENDPOINT_URL_S3: sqs.endpoint });
    const names = physicalNames(prefix, randomUUID().slice(0, 8));
    await createAgentTable(new DynamoDBClient({}), names.table);
    const { turnQueueUrl } = await createTurnQueues(new SQSClient({}), names);
    const credentials = { appSecret: `${prefix}-secret`, verifyToken: `${prefix}-token`, accessToken: fake.accessToken };
    return await body({ fake, tableName: names.table, turnQueueUrl, credentials });
  } finally {
    await fake.close();
    await Promise.all([dynamodb.stop(), sqs.stop()]);
  }
}

/** Names the WhatsApp secret in settings; never read: the benchmarks hand the functions `credentials`. */
const UNREAD_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench';

/**
 * The deployment the benchmarks play: the Cloud API at the fake Graph API, the scripted agent, the
 * construct's defaults but for `choices` (another key layout, a media bucket, the operator plane),
 * as the plan's writer tells the webhook and the orchestrator and their readers read it.
 */
export function inProcessSettings(pipeline: InProcessPipeline, choices: Pick<DeploymentOptions, 'keyLayout' | 'media' | 'operatorPlane'> = {}): WebhookSettings & OrchestratorSettings {
  const plan = writeDeploymentPlan({
    ...choices,
    ...ANSWER_AT_ONCE,
    resources: { tableName: pipeline.tableName, turnQueueUrl: pipeline.turnQueueUrl, deadLetterQueueUrl: pipeline.turnQueueUrl },
    observability: { serviceName: pipeline.tableName, metricsNamespace: PIPELINE_DEFAULTS.serviceName, logLevel: 'SILENT', tracing: false },
    channel: { kind: WHATSAPP_CHANNEL_KINDS.cloudApi, whatsAppSecretArn: UNREAD_SECRET_ARN, apiBaseUrl: pipeline.fake.baseUrl },
    agent: { backend: AGENT_BACKEND_KINDS.scripted },
  });
  return { ...readWebhookSettings(plan.webhook!), ...readOrchestratorSettings(plan.orchestrator!) };
}

/** POSTs a Meta notification to the webhook as its Function URL would, signed; fails on anything but 200. */
export async function postToWebhook(webhook: WebhookHandler, appSecret: string, body: string): Promise<void> {
  const response = await webhook({
    version: '2.0',
    routeKey: '$default',
    rawPath: '/',
    rawQueryString: '',
    isBase64Encoded: false,
    body,
    headers: { 'x-hub-signature-256': signMetaPayload(body, appSecret) },
    requestContext: { http: { method: 'POST' } },
  } as never);
  if (response.statusCode !== 200) throw new Error(`webhook answered ${response.statusCode}`);
}

/** Runs the orchestrator on the queue record of one message, first receive; answers whether it reported a failure. */
export async function runTurn(orchestrator: OrchestratorHandler, customerId: string, messageId: string): Promise<boolean> {
  const record = { messageId: randomUUID(), body: encodeDispatchMessage({ customerId, messageId }), attributes: { ApproximateReceiveCount: '1' } } as unknown as SQSRecord;
  const result = await orchestrator({ Records: [record] }, { getRemainingTimeInMillis: () => 90_000 });
  return result.batchItemFailures.length > 0;
}

/** Meta's notification of one customer text message to the benchmarks' business number. */
export function textNotification(customerId: string, messageId: string, text: string): string {
  return messageNotification(customerId, messageId, { type: 'text', text: { body: text } });
}

/** Meta's notification of one customer message of any type (`content`: its `type` and the object it names). */
export function messageNotification(customerId: string, messageId: string, content: Record<string, unknown>): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{ id: '1', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550000000', phone_number_id: '106540352242922' }, messages: [{ from: customerId, id: messageId, timestamp: String(Math.floor(Date.now() / 1000)), ...content }] } }] }],
  });
}
