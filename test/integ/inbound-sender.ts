// What the integration tests share: a function that sends one customer message into a deployed
// pipeline as Meta or End User Messaging would, and the read-back of the receipt it must leave.
// The message is built when the assertion runs, not at synth: a turn whose Meta timestamp is older
// than the receipt retention is dropped as a possible replay, and the snapshot stays the same.
import { type App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { ExpectedResult, IntegTest } from '@aws-cdk/integ-tests-alpha';
import { Construct } from 'constructs';
import { EntityType, ENTITY_TYPE, inboundReceiptKey } from '../../lambda/core/adapters/dynamodb/keys';
import type { AgentPipeline } from '../../lib';
import { WHATSAPP_SECRET_FIELDS } from '../../lib/contract';

/** The customer, business number and WABA every integration test message uses (Meta's example ids). */
export const INTEG_MESSAGE = {
  customerId: '16505551234',
  metaPhoneNumberId: '106540352242922',
  wabaId: '102290129340398',
  text: 'Oi, quero um exame',
} as const;

/** What makes a test's pipeline go with its stack: the runner destroys the stack after the assertions. */
export const DISPOSABLE = { removalPolicy: RemovalPolicy.DESTROY, deletionProtection: false } as const;

/**
 * Sends the message of its payload and returns the HTTP status it got. With `webhookUrl`: a Cloud API
 * notification signed with the `appSecret` of `secretArn`, POSTed to the webhook. Otherwise an End
 * User Messaging event, its header naming this account and the linked number: published to
 * `topicArn`, which must refuse it although this function's role allows the publish (only the
 * service may publish there), then handed to `inboundFunctionName` as the topic would deliver it.
 */
const SENDER_CODE = `
const crypto = require('node:crypto');
const { SecretsManagerClient, GetSecretValueCommand } = require('@aws-sdk/client-secrets-manager');
const { SNSClient, PublishCommand } = require('@aws-sdk/client-sns');
const { LambdaClient, InvokeCommand } = require('@aws-sdk/client-lambda');
exports.handler = async (event, context) => {
  const [, partition, , region, account] = context.invokedFunctionArn.split(':');
  const entry = { id: event.wabaId, changes: [{ field: 'messages', value: {
    messaging_product: 'whatsapp',
    metadata: { display_phone_number: '15550783881', phone_number_id: event.metaPhoneNumberId },
    contacts: [{ profile: { name: 'Integration Test' }, wa_id: event.customerId }],
    messages: [{ from: event.customerId, id: event.messageId, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: event.text } }],
  } }] };
  if (event.webhookUrl) {
    const secret = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: event.secretArn }));
    const body = JSON.stringify({ object: 'whatsapp_business_account', entry: [entry] });
    const signature = 'sha256=' + crypto.createHmac('sha256', JSON.parse(secret.SecretString).${WHATSAPP_SECRET_FIELDS.appSecret}).update(body).digest('hex');
    const response = await fetch(event.webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, body });
    return response.status;
  }
  const linked = (type) => 'arn:' + partition + ':social-messaging:' + region + ':' + account + ':' + type + '/' + event.originationPhoneNumberId.replace(/^phone-number-id-/, '');
  const message = JSON.stringify({
    context: {
      MetaWabaIds: [{ wabaId: event.wabaId, arn: linked('waba') }],
      MetaPhoneNumberIds: [{ metaPhoneNumberId: event.metaPhoneNumberId, arn: linked('phone-number-id') }],
    },
    whatsAppWebhookEntry: JSON.stringify(entry),
    aws_account_id: account,
    message_timestamp: new Date().toISOString(),
    messageId: crypto.randomUUID(),
  });
  const publishRefused = await new SNSClient({}).send(new PublishCommand({ TopicArn: event.topicArn, Message: message })).then(
    () => false,
    (error) => error.name === 'AuthorizationErrorException',
  );
  if (!publishRefused) return 'the topic let a role of the account publish';
  const record = { EventSource: 'aws:sns', Sns: { Type: 'Notification', MessageId: crypto.randomUUID(), TopicArn: event.topicArn, Message: message, Timestamp: new Date().toISOString() } };
  const invoked = await new LambdaClient({}).send(new InvokeCommand({ FunctionName: event.inboundFunctionName, Payload: Buffer.from(JSON.stringify({ Records: [record] })) }));
  return invoked.FunctionError ? Buffer.from(invoked.Payload).toString() : invoked.StatusCode;
};
`;

/** Where a message goes: the webhook and its secret (Cloud API), or the event topic and the linked number (End User Messaging). */
export type InboundDestination =
  | { readonly webhookUrl: string; readonly secret: secretsmanager.ISecret }
  | { readonly topic: sns.ITopic; readonly inboundFunction: lambda.IFunction; readonly originationPhoneNumberId: string };

/** The sending function, deployed beside the pipeline in the test stack, allowed to reach `destination`. */
export class InboundSender extends Construct {
  public readonly function: lambda.Function;
  /** What the function is invoked with, besides the message. */
  public readonly destinationPayload: Record<string, string>;

  constructor(scope: Construct, id: string, destination: InboundDestination) {
    super(scope, id);
    this.function = new lambda.Function(this, 'Function', {
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
      code: lambda.Code.fromInline(SENDER_CODE),
      timeout: Duration.seconds(30),
      logGroup: new logs.LogGroup(this, 'Logs', { retention: logs.RetentionDays.ONE_DAY, removalPolicy: RemovalPolicy.DESTROY }),
    });
    if ('webhookUrl' in destination) {
      destination.secret.grantRead(this.function);
      this.destinationPayload = { webhookUrl: destination.webhookUrl, secretArn: destination.secret.secretArn };
    } else {
      // Allowed by its own role, so that the refusal it must meet is the topic policy's.
      destination.topic.grantPublish(this.function);
      destination.inboundFunction.grantInvoke(this.function);
      this.destinationPayload = {
        topicArn: destination.topic.topicArn,
        inboundFunctionName: destination.inboundFunction.functionName,
        originationPhoneNumberId: destination.originationPhoneNumberId,
      };
    }
  }
}

/**
 * The integration test `id` of `pipeline`'s stack, asserting on the deployed stack that the message
 * `messageId` sent to `destination` by an InboundSender is answered with HTTP 200 (the webhook's
 * response, or the inbound function's invocation once the topic refused the sender's publish) and
 * that its inbound receipt is then in the pipeline's table: both acknowledge only what they stored.
 */
export function messageReceivedTest(app: App, id: string, options: { pipeline: AgentPipeline; destination: InboundDestination; messageId: string }): IntegTest {
  const { pipeline, destination, messageId } = options;
  const stack = Stack.of(pipeline);
  const integ = new IntegTest(app, id, { testCases: [stack], diffAssets: false });
  const sender = new InboundSender(stack, 'Sender', destination);
  const send = integ.assertions.invokeFunction({
    functionName: sender.function.functionName,
    payload: stack.toJsonString({ ...INTEG_MESSAGE, ...sender.destinationPayload, messageId }),
  });
  send.expect(ExpectedResult.objectLike({ Payload: '200' }));

  const key = inboundReceiptKey(INTEG_MESSAGE.customerId, messageId);
  const readReceipt = integ.assertions.awsApiCall('DynamoDB', 'getItem', {
    TableName: pipeline.table.tableName,
    Key: Object.fromEntries(Object.entries(key).map(([name, value]) => [name, { S: value }])),
    ConsistentRead: true,
  });
  readReceipt.expect(ExpectedResult.objectLike({ Item: { [ENTITY_TYPE]: { S: EntityType.inboundReceipt } } }));
  send.next(readReceipt);
  return integ;
}
