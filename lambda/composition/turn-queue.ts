import { localePreset } from '../../lib/contract';
import type { RequestTimeouts } from '../core/adapters/aws/request-timeouts';
import { inboundRepositories, messageTemplates } from '../core/adapters/dynamodb/dynamo-repositories';
import { SignedSqs, type SqsApi } from '../core/adapters/sqs/sqs-api';
import { SqsTurnDispatcher } from '../core/adapters/sqs/sqs-turn-dispatcher';
import { MessageTemplates } from '../core/application/message-templates';
import type { CoexistenceRecorders } from '../core/application/inbound-notification';
import { RecordBusinessEchoes } from '../core/application/record-business-echoes';
import { RecordDeliveryStatuses } from '../core/application/record-delivery-status';
import { RecordStandbyMessages } from '../core/application/record-standby-messages';
import { RegisterInboundTurns } from '../core/application/register-inbound';
import type { ComposedFunction, FunctionPorts } from './compose-function';
import type { WebhookSettings } from './deployment-settings';

export interface TurnQueuePorts {
  /** A client of the turn queue and its dead-letter queue instead of the SDK's default (a local emulator). */
  readonly sqsClient?: SqsApi;
}

/** The turn queue's client, traced as `fetch` calls like the table's; `timeouts` bound each call (the webhook's). */
export function turnQueueClient(ports: TurnQueuePorts & FunctionPorts, timeouts?: RequestTimeouts): SqsApi {
  return ports.sqsClient ?? new SignedSqs({ timeouts, credentials: ports.awsCredentials });
}

/** What both inbound functions (webhook, End User Messaging) register customer messages with. */
export function composeRegisterInbound(
  settings: Pick<WebhookSettings, 'turnQueueUrl' | 'locale'>,
  composed: ComposedFunction,
  ports: TurnQueuePorts & FunctionPorts,
  timeouts?: RequestTimeouts,
): RegisterInboundTurns {
  return new RegisterInboundTurns({
    ...inboundRepositories(composed.table),
    dispatcher: new SqsTurnDispatcher(settings.turnQueueUrl, turnQueueClient(ports, timeouts)),
    consentWords: localePreset(settings.locale).consentWords,
  });
}

/** What both inbound functions record Meta's delivery statuses with. */
export function composeRecordStatuses(composed: ComposedFunction): RecordDeliveryStatuses {
  return new RecordDeliveryStatuses({ messages: inboundRepositories(composed.table).messages });
}

/** What both inbound functions apply Meta's template status changes with; none without the operator plane's templates. */
export function composeTemplateStatusUpdates(settings: Pick<WebhookSettings, 'applyTemplateStatusUpdates'>, composed: ComposedFunction): MessageTemplates | undefined {
  return settings.applyTemplateStatusUpdates ? new MessageTemplates({ templates: messageTemplates(composed.table), clock: composed.clock }) : undefined;
}

/** What both inbound functions record the WhatsApp Business app's echoes and standby messages with. */
export function composeCoexistence(composed: ComposedFunction): CoexistenceRecorders {
  const { sessions, messages } = inboundRepositories(composed.table);
  const deps = { sessions, messages, clock: composed.clock, ids: composed.ids };
  return { echoes: new RecordBusinessEchoes(deps), standby: new RecordStandbyMessages(deps) };
}
