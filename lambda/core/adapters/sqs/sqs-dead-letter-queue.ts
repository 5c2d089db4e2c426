import { randomUUID } from 'node:crypto';
import type { DeadLetterQueue, DeadLetterRecord } from '../../ports/dead-letter-queue';
import { decodeDispatchMessage } from './dispatch-message';
import type { SqsApi } from './sqs-api';

/** Records received per call (the SQS maximum). */
const BATCH = 10;

export interface SqsDeadLetterQueueOptions {
  /** Where records are sent back (the redrive); an erasure, which only reads and deletes, needs none. */
  readonly turnQueueUrl?: string;
  readonly deadLetterQueueUrl: string;
  readonly sqs: SqsApi;
}

/** The turn queue's FIFO dead-letter queue on SQS. */
export class SqsDeadLetterQueue implements DeadLetterQueue {
  constructor(private readonly options: SqsDeadLetterQueueOptions) {}

  async receive(holdSeconds: number): Promise<DeadLetterRecord[]> {
    const { Messages: messages = [] } = await this.options.sqs.call('ReceiveMessage', {
      QueueUrl: this.options.deadLetterQueueUrl,
      MaxNumberOfMessages: BATCH,
      VisibilityTimeout: holdSeconds,
      WaitTimeSeconds: 0,
      MessageSystemAttributeNames: ['All'],
    });
    return messages.map((message) => ({
      recordId: message.MessageId ?? '?',
      body: message.Body ?? '',
      turn: decodeDispatchMessage(message.Body ?? ''),
      receiveCount: Number(message.Attributes?.ApproximateReceiveCount ?? 0),
      queuedAt: message.Attributes?.SentTimestamp ? new Date(Number(message.Attributes.SentTimestamp)).toISOString() : undefined,
      groupId: message.Attributes?.MessageGroupId,
      handle: message.ReceiptHandle!,
    }));
  }

  async release(record: DeadLetterRecord): Promise<void> {
    await this.options.sqs.call('ChangeMessageVisibility', { QueueUrl: this.options.deadLetterQueueUrl, ReceiptHandle: record.handle, VisibilityTimeout: 0 });
  }

  async sendBackToTurnQueue(record: DeadLetterRecord): Promise<void> {
    if (this.options.turnQueueUrl === undefined) throw new TypeError('This dead-letter queue was opened without its turn queue: nothing can be sent back');
    await this.options.sqs.call('SendMessage', {
      QueueUrl: this.options.turnQueueUrl,
      MessageBody: record.body,
      MessageGroupId: record.groupId,
      // A fresh id: the original one is still in the queue's deduplication window.
      MessageDeduplicationId: randomUUID(),
    });
  }

  async remove(record: DeadLetterRecord): Promise<void> {
    await this.options.sqs.call('DeleteMessage', { QueueUrl: this.options.deadLetterQueueUrl, ReceiptHandle: record.handle });
  }
}
