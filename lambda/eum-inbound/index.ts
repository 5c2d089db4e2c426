// Entry point of the End User Messaging inbound function: composes the inbound use case from its
// adapters. The SNS contract lives in sns-events.ts, the behaviour in core/application/register-inbound.ts.
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SNSEvent } from 'aws-lambda';
import { inboundRepositories } from '../core/adapters/dynamodb/dynamo-repositories';
import { composeFunction, type FunctionRuntime } from '../core/adapters/function-runtime';
import { SqsTurnDispatcher } from '../core/adapters/sqs/sqs-turn-dispatcher';
import { RegisterInboundTurns } from '../core/application/register-inbound';
import { readEndUserMessagingInboundConfig } from './runtime-config';
import { createEndUserMessagingEventsHandler } from './sns-events';

export type EndUserMessagingInboundHandler = (event: SNSEvent) => Promise<void>;

/** What the function needs from its surroundings; the Lambda reads it from the environment. */
export interface EndUserMessagingInboundRuntime extends FunctionRuntime {
  readonly turnQueueUrl: string;
  readonly businessPhoneNumberIds: readonly string[];
  readonly sqsClient?: SQSClient;
}

export function createEndUserMessagingInboundHandler(runtime: EndUserMessagingInboundRuntime): EndUserMessagingInboundHandler {
  const composed = composeFunction('eum-inbound', runtime);
  const sqsClient = runtime.sqsClient ?? composed.powertools.tracer.captureAWSv3Client(new SQSClient({}));
  const events = createEndUserMessagingEventsHandler({
    registerInbound: new RegisterInboundTurns({ ...inboundRepositories(composed.table), dispatcher: new SqsTurnDispatcher(runtime.turnQueueUrl, sqsClient) }),
    clock: composed.clock,
    logger: composed.logger,
    metrics: composed.metrics,
    businessPhoneNumberIds: new Set(runtime.businessPhoneNumberIds),
  });
  return (event) => composed.instrument(() => events(event));
}

let fromEnvironment: EndUserMessagingInboundHandler | undefined;

/** The Lambda handler, composed on first use so importing this module has no side effects. */
export const handler: EndUserMessagingInboundHandler = (event) => {
  if (fromEnvironment === undefined) {
    const config = readEndUserMessagingInboundConfig();
    fromEnvironment = createEndUserMessagingInboundHandler({
      tableName: config.tableName,
      turnQueueUrl: config.turnQueueUrl,
      businessPhoneNumberIds: config.businessPhoneNumberIds,
      observability: config.observability,
    });
  }
  return fromEnvironment(event);
};
