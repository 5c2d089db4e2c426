import { Duration } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { PIPELINE_DEFAULTS } from '../contract';
import type { PipelineSettings } from './pipeline-settings';
import { acceptFinding } from './accepted-findings';
import { queueEncryption } from './queue-encryption';

/** The FIFO turn queue and the FIFO dead-letter queue its failed turns end in. */
export interface TurnQueue {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
}

/** The turn queue between the webhook and the orchestrator, with its dead-letter queue. */
export function buildTurnQueue(scope: Construct, settings: PipelineSettings, encryptionKey: kms.IKey | undefined): TurnQueue {
  const { names, removalPolicy } = settings;
  const deadLetterQueue = new sqs.Queue(scope, 'DeadLetterQueue', {
    queueName: names.deadLetterQueue,
    fifo: true,
    retentionPeriod: settings.deadLetterQueueRetentionPeriod,
    enforceSSL: true,
    removalPolicy,
    ...queueEncryption(encryptionKey),
  });
  acceptFinding(deadLetterQueue, 'SQSRedrivePolicy', "This queue is itself the turn queue's dead-letter queue: its records go back only through the redrive, which investigates first.");
  const queue = new sqs.Queue(scope, 'Queue', {
    queueName: names.queue,
    fifo: true,
    // The webhook supplies sha256(message id) as the deduplication id.
    contentBasedDeduplication: false,
    deliveryDelay: Duration.seconds(PIPELINE_DEFAULTS.queueDeliveryDelaySeconds),
    visibilityTimeout: settings.visibilityTimeout,
    retentionPeriod: settings.queueRetentionPeriod,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
    enforceSSL: true,
    removalPolicy,
    ...queueEncryption(encryptionKey),
  });
  return { queue, deadLetterQueue };
}
