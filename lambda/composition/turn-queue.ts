import { SQSClient } from '@aws-sdk/client-sqs';
import { localePreset } from '../../lib/contract';
import { inboundRepositories } from '../core/adapters/dynamodb/dynamo-repositories';
import { SqsTurnDispatcher } from '../core/adapters/sqs/sqs-turn-dispatcher';
import { RegisterInboundTurns } from '../core/application/register-inbound';
import type { ComposedFunction, FunctionPorts } from './compose-function';
import type { WebhookSettings } from './deployment-settings';

export interface TurnQueuePorts {
  /** A client of the turn queue and its dead-letter queue instead of the SDK's default (a local emulator). */
  readonly sqsClient?: SQSClient;
}

/** The turn queue's client, traced like the table's. */
export function turnQueueClient(composed: ComposedFunction, ports: TurnQueuePorts & FunctionPorts): SQSClient {
  return ports.sqsClient ?? composed.powertools.tracer.captureAWSv3Client(new SQSClient(ports.awsCredentials === undefined ? {} : { credentials: ports.awsCredentials }));
}

/** What both inbound functions (webhook, End User Messaging) register customer messages with. */
export function composeRegisterInbound(
  settings: Pick<WebhookSettings, 'turnQueueUrl' | 'locale'>,
  composed: ComposedFunction,
  ports: TurnQueuePorts & FunctionPorts,
): RegisterInboundTurns {
  return new RegisterInboundTurns({
    ...inboundRepositories(composed.table),
    dispatcher: new SqsTurnDispatcher(settings.turnQueueUrl, turnQueueClient(composed, ports)),
    consentWords: localePreset(settings.locale).consentWords,
  });
}
