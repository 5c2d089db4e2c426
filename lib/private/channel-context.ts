import { Duration } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { PipelineFunctionFactory } from './function-factory';
import type { PipelineSettings } from './pipeline-settings';
import type { WhatsAppChannelContext } from './whatsapp-channel-binding';

/** Webhook work per POST is one transaction and one SendMessage; Meta only needs a fast 200. */
const WEBHOOK_TIMEOUT = Duration.seconds(10);

/** What `channelContext` builds the channel's context from. */
export interface ChannelContextSources {
  readonly settings: PipelineSettings;
  readonly functions: PipelineFunctionFactory;
  readonly encryptionKey?: kms.IKey;
}

/**
 * What the pipeline gives its WhatsApp channel. Whichever the channel, its inbound function records
 * each message in the table and dispatches it to the turn queue (as the plan tells it), with the
 * webhook's memory, timeout and reserved concurrency, and is invoked through the webhook alias when
 * there is one.
 */
export function channelContext({ settings, functions, encryptionKey }: ChannelContextSources): WhatsAppChannelContext {
  return {
    settings: settings.channel,
    tableName: settings.names.table,
    removalPolicy: settings.removalPolicy,
    deadLetterQueueRetentionPeriod: settings.deadLetterQueueRetentionPeriod,
    encryptionKey,
    createInboundFunction: (id, { description, settings: told, deadLetterQueue }) => {
      const webhookFunction = functions.createFunction(id, {
        description,
        memorySize: settings.webhookMemorySize,
        timeout: WEBHOOK_TIMEOUT,
        settings: told,
        reservedConcurrentExecutions: settings.webhookReservedConcurrency,
        deadLetterQueue,
      });
      return { webhookFunction, webhookAlias: functions.createAlias(webhookFunction, 'Webhook') };
    },
    exposeWebhook: (scope, target) => settings.webhookFrontDoor._bind(scope, target, { deploymentName: settings.names.table, stageName: settings.environment, tracing: settings.tracing }),
  };
}
