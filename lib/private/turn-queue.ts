import { Duration, Token } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { PIPELINE_DEFAULTS } from '../contract';
import type { PipelineSettings } from './pipeline-settings';
import { acceptFinding } from './accepted-findings';
import { queueEncryption } from './queue-encryption';

/** The FIFO turn queue and the FIFO dead-letter queue its failed turns end in. */
export interface TurnQueue {
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
}

/** Where the queues come from: the consumer's, or ones the pipeline creates with the key. */
export interface TurnQueueSources {
  readonly existingTurnQueue?: sqs.IQueue;
  readonly existingDeadLetterQueue?: sqs.IQueue;
  readonly deadLetterQueueProps?: sqs.QueueProps;
  readonly encryptionKey?: kms.IKey;
}

/**
 * The turn queue between the webhook and the orchestrator, with its dead-letter queue: the
 * consumer's (checked as far as the app shows them) or new ones.
 */
export function pipelineTurnQueue(scope: Construct, settings: PipelineSettings, sources: TurnQueueSources): TurnQueue {
  const fail = (problem: string): never => {
    throw new Error(`AgentPipeline at '${scope.node.path}': ${problem}`);
  };
  const { existingTurnQueue, existingDeadLetterQueue, encryptionKey } = sources;
  if (existingDeadLetterQueue !== undefined) checkFifo(fail, 'existingDeadLetterQueue', existingDeadLetterQueue);
  if (existingTurnQueue === undefined) {
    const deadLetterQueue = existingDeadLetterQueue ?? buildDeadLetterQueue(scope, settings, encryptionKey, sources.deadLetterQueueProps);
    return { queue: buildQueue(scope, settings, encryptionKey, deadLetterQueue), deadLetterQueue };
  }
  checkFifo(fail, 'existingTurnQueue', existingTurnQueue);
  if (!(existingTurnQueue instanceof sqs.Queue)) {
    if (existingDeadLetterQueue === undefined) {
      fail("existingTurnQueue is imported, so its redrive policy cannot be read: pass the dead-letter queue it names as existingDeadLetterQueue (the alarms, the redrive and the privacy commands work on it).");
    }
    return { queue: existingTurnQueue, deadLetterQueue: existingDeadLetterQueue! };
  }
  const own = existingTurnQueue.deadLetterQueue?.queue;
  if (own === undefined) fail('existingTurnQueue has no deadLetterQueue: a turn that fails every receive would be retried until it expires. Give the queue a FIFO deadLetterQueue.');
  if (existingDeadLetterQueue !== undefined && existingDeadLetterQueue !== own) {
    fail("existingDeadLetterQueue is not existingTurnQueue's deadLetterQueue: leave existingDeadLetterQueue out, and the queue's own is used.");
  }
  checkFifo(fail, "existingTurnQueue's deadLetterQueue", own!);
  const visibilityTimeout = (existingTurnQueue.node.defaultChild as sqs.CfnQueue).visibilityTimeout;
  const orchestratorTimeout = settings.orchestratorTimeout;
  // SQS's default visibility timeout is 30 s.
  const visibilitySeconds = visibilityTimeout ?? 30;
  if (!Token.isUnresolved(visibilitySeconds) && !orchestratorTimeout.isUnresolved() && visibilitySeconds <= orchestratorTimeout.toSeconds()) {
    fail(
      `existingTurnQueue's visibility timeout (${visibilitySeconds} s) must be greater than orchestratorTimeout (${orchestratorTimeout.toSeconds()} s): ` +
        'otherwise SQS hands a turn to a second orchestrator while the first still works on it. Raise the queue visibilityTimeout.',
    );
  }
  return { queue: existingTurnQueue, deadLetterQueue: own! };
}

/** FIFO keeps each customer's messages in order; a standard queue would not, and the webhook's sends would fail. */
function checkFifo(fail: (problem: string) => never, label: string, queue: sqs.IQueue): void {
  if (!queue.fifo) fail(`${label} must be a FIFO queue (its name ends in '.fifo'; import a queue whose ARN is a token with fifo: true).`);
}

function buildDeadLetterQueue(scope: Construct, settings: PipelineSettings, encryptionKey: kms.IKey | undefined, props: sqs.QueueProps | undefined): sqs.Queue {
  const deadLetterQueue = new sqs.Queue(scope, 'DeadLetterQueue', {
    queueName: settings.physicalNames.deadLetterQueue,
    retentionPeriod: settings.deadLetterQueueRetentionPeriod,
    enforceSSL: true,
    removalPolicy: settings.removalPolicy,
    ...queueEncryption(encryptionKey),
    ...props,
    fifo: true,
  });
  acceptFinding(deadLetterQueue, 'SQSRedrivePolicy', "This queue is itself the turn queue's dead-letter queue: its records go back only through the redrive, which investigates first.");
  return deadLetterQueue;
}

function buildQueue(scope: Construct, settings: PipelineSettings, encryptionKey: kms.IKey | undefined, deadLetterQueue: sqs.IQueue): sqs.Queue {
  return new sqs.Queue(scope, 'Queue', {
    queueName: settings.physicalNames.queue,
    fifo: true,
    // The webhook supplies sha256(message id) as the deduplication id.
    contentBasedDeduplication: false,
    deliveryDelay: Duration.seconds(PIPELINE_DEFAULTS.queueDeliveryDelaySeconds),
    visibilityTimeout: settings.visibilityTimeout,
    retentionPeriod: settings.queueRetentionPeriod,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
    enforceSSL: true,
    removalPolicy: settings.removalPolicy,
    ...queueEncryption(encryptionKey),
  });
}
