/**
 * The two redelivery loops the pipeline relies on, played deterministically: Meta re-POSTs a
 * notification until the webhook answers 200, and SQS hands a record back until the orchestrator
 * succeeds — at most `maxReceiveCount` times, then the queue moves it to the DLQ.
 */
import { ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import { AWS_SDK_FAILURES } from '../../support/fault-injection';
import { signedPost } from '../../support/webhook-events';
import type { OrchestratorUnderTest, ReliabilityEnvironment, WebhookUnderTest } from './pipeline-under-test';

export interface DeliveryReport {
  readonly accepted: boolean;
  /** HTTP statuses Meta saw, in order (`crashed`: the connection died with the invocation). */
  readonly statuses: readonly (number | 'crashed')[];
  /** Invocations that crashed yet answered 200: a crash turned into success. */
  readonly swallowedCrashes: number;
}

/** Meta's side of the webhook: POST the signed body, retry every non-200 answer. */
export class MetaDeliveries {
  private deliveries = 0;

  constructor(private readonly webhook: WebhookUnderTest) {}

  async deliver(body: string, maxAttempts = 5): Promise<DeliveryReport> {
    const statuses: (number | 'crashed')[] = [];
    let swallowedCrashes = 0;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const outcome = await this.webhook.injector.runInvocation(`webhook#${++this.deliveries}`, () => this.webhook.handle(signedPost(body)));
      // A handler that throws is a function error: Meta sees a 502 and retries like any failure.
      const status = outcome.value?.statusCode ?? 502;
      if (outcome.crashed && status === 200) swallowedCrashes++;
      statuses.push(outcome.crashed ? 'crashed' : status);
      if (!outcome.crashed && status === 200) return { accepted: true, statuses, swallowedCrashes };
    }
    return { accepted: false, statuses, swallowedCrashes };
  }
}

export interface DrainReport {
  readonly invocations: number;
  /** Invocations whose record went back to the queue (failure reported, crash, or not deleted). */
  readonly redeliveries: number;
  /** Invocations that crashed yet reported success. */
  readonly swallowedCrashes: number;
  /** The queue still had work after `maxInvocations`. */
  readonly exhausted: boolean;
}

/** The customer a record belongs to: its message group. */
export function customerOfInvocation(invocation: string | undefined): string | undefined {
  return invocation?.split('@')[1];
}

/**
 * Lambda's event source mapping for the FIFO queue, one record at a time: invoke, delete on success,
 * otherwise hand the record back at once (the visibility timeout, expired). The queue's own redrive
 * policy moves a record to the DLQ on the receive after its third.
 */
export class EventSourceDriver {
  private invocations = 0;
  private readonly queue: { deleteMessage(receiptHandle: string): Promise<unknown> };

  constructor(
    private readonly env: ReliabilityEnvironment,
    private readonly orchestrator: OrchestratorUnderTest,
  ) {
    const { turnQueueUrl: queueUrl } = env;
    // Lambda's event source polls with the function's role.
    const { sqs } = env.principals.orchestrator;
    // The event source's delete is a remote call too: when it fails, a processed record comes back.
    this.queue = orchestrator.injector.remote(
      'eventSource',
      { deleteMessage: (receiptHandle: string) => sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle })) },
      AWS_SDK_FAILURES,
    );
  }

  /** Receives one record, if any is visible. */
  async receive(): Promise<Message | undefined> {
    const { Messages: messages = [] } = await this.orchestrator.injector.track(() =>
      this.env.principals.orchestrator.sqs.send(new ReceiveMessageCommand({ QueueUrl: this.env.turnQueueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 0, MessageSystemAttributeNames: ['All'] })),
    );
    return messages[0];
  }

  /** Runs the orchestrator on one received record and settles it; `true` when it was deleted. */
  async process(message: Message): Promise<{ deleted: boolean; swallowedCrash: boolean }> {
    const record = toRecord(message, this.env.turnQueueUrl);
    const invocation = `turn#${++this.invocations}@${record.attributes.MessageGroupId}`;
    const outcome = await this.orchestrator.injector.runInvocation(invocation, () => this.orchestrator.handle(record));
    const reportedSuccess = outcome.value !== undefined && outcome.value.batchItemFailures.length === 0;
    let deleted = false;
    if (reportedSuccess && !outcome.crashed) {
      deleted = await this.queue.deleteMessage(record.receiptHandle).then(
        () => true,
        () => false,
      );
    }
    if (!deleted) await this.release(record.receiptHandle);
    return { deleted, swallowedCrash: reportedSuccess && outcome.crashed };
  }

  /** Processes records until the queue is empty (or `maxInvocations`, a guard against loops). */
  async drain(maxInvocations = 20): Promise<DrainReport> {
    let invocations = 0;
    let redeliveries = 0;
    let swallowedCrashes = 0;
    for (let message = await this.receive(); message !== undefined; message = await this.receive()) {
      if (invocations === maxInvocations) {
        await this.release(message.ReceiptHandle!);
        return { invocations, redeliveries, swallowedCrashes, exhausted: true };
      }
      invocations++;
      const { deleted, swallowedCrash } = await this.process(message);
      if (!deleted) redeliveries++;
      if (swallowedCrash) swallowedCrashes++;
    }
    return { invocations, redeliveries, swallowedCrashes, exhausted: false };
  }

  /** Makes a record visible again, as its visibility timeout would. A deleted record stays deleted. */
  async release(receiptHandle: string): Promise<void> {
    await this.orchestrator.injector
      // SQS's own visibility timeout, not a call of the function's: signed as the test harness.
      .track(() => this.env.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: this.env.turnQueueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: 0 })))
      .catch(() => undefined);
  }
}

/** The record as Lambda's SQS event source shapes it. */
export function toRecord(message: Message, queueUrl: string): SQSRecord {
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: (message.Attributes ?? {}) as unknown as SQSRecordAttributes,
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queueUrl.split('/').pop()}`,
    awsRegion: 'us-east-1',
  };
}
