import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type Message,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import { PIPELINE_DEFAULTS } from '../../lib/contract';

/** The part of the Lambda context a local invocation provides. */
export type LocalInvocationContext = Pick<
  Context,
  'functionName' | 'functionVersion' | 'invokedFunctionArn' | 'memoryLimitInMB' | 'awsRequestId' | 'getRemainingTimeInMillis'
>;

/** A function subscribed to the queue; `void` means every record succeeded. */
export type SqsFunctionHandler = (event: SQSEvent, context: LocalInvocationContext) => Promise<SQSBatchResponse | void>;

/**
 * What became of one invocation:
 * - `deleted`: the function succeeded for the record, which was deleted from the queue;
 * - `retained`: the function reported the record in `batchItemFailures`; it stays in the queue;
 * - `threw`: the invocation failed as a whole; the record stays in the queue;
 * - `timed_out`: the function ran past its timeout; the record stays in the queue.
 *
 * A retained record becomes visible again after the queue's visibility timeout and moves to the
 * dead-letter queue once the queue's redrive policy says so.
 */
export type InvocationOutcome = 'deleted' | 'retained' | 'threw' | 'timed_out';

export interface InvocationReport {
  readonly record: SQSRecord;
  readonly outcome: InvocationOutcome;
  readonly receiveCount: number;
  readonly durationMs: number;
  /** Set for `threw` and `timed_out`, or when deleting a processed record failed. */
  readonly error?: unknown;
}

export interface SqsEventSourceOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
  readonly handler: SqsFunctionHandler;
  /** Shown in the invocation context. Default `orchestrator`. */
  readonly functionName?: string;
  /** Default `PIPELINE_DEFAULTS.orchestratorTimeoutSeconds` (90 s, as deployed). */
  readonly functionTimeoutSeconds?: number;
  /**
   * Invocations in flight at once (the event source's maximum concurrency). FIFO order holds
   * regardless: one message group's messages are never invoked concurrently. Default 10.
   */
  readonly maxConcurrency?: number;
  /** ReceiveMessage long-poll wait. Default 20 s (stop() interrupts it). */
  readonly waitTimeSeconds?: number;
  /** Sees every invocation after its outcome is settled. */
  readonly onInvocation?: (report: InvocationReport) => void;
  /** Sees failed polls (the poller backs off and keeps polling). */
  readonly onPollError?: (error: unknown) => void;
}

const DEFAULT_MAX_CONCURRENCY = 10;
const DEFAULT_WAIT_TIME_SECONDS = 20;
/** ReceiveMessage returns at most 10 messages. */
const SQS_MAX_RECEIVE = 10;
const POLL_ERROR_BACKOFF_MS = 1_000;
const MEMORY_LIMIT_MB = '1024';

/**
 * Runs a function the way Lambda's event source mapping does for a FIFO queue with batch size 1 and
 * `ReportBatchItemFailures`: long-polls the queue, invokes the function with a one-record SQSEvent
 * and a context whose remaining time counts down from the function timeout, deletes the record on
 * success and leaves it in the queue when the function reports it in `batchItemFailures`, throws or
 * times out — the queue's own visibility timeout and redrive policy decide when it comes back and
 * when it moves to the dead-letter queue.
 *
 * Like Lambda's pollers, one long poll at a time asks for as many messages as there are free
 * invocation slots (up to 10), so nothing waits in flight for a slot while its visibility timeout
 * runs. Messages of different groups are invoked concurrently; messages of one group strictly one
 * after another, and after a failure the rest of that group's batch is left for redelivery.
 */
export class SqsEventSource {
  /** Resolves the queue ARN for the records, then starts polling. */
  static async start(options: SqsEventSourceOptions): Promise<SqsEventSource> {
    const maxConcurrency = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
    if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1) throw new RangeError(`maxConcurrency must be a positive integer, got ${maxConcurrency}`);
    const attributes = await options.client.send(new GetQueueAttributesCommand({ QueueUrl: options.queueUrl, AttributeNames: ['QueueArn'] }));
    const queueArn = attributes.Attributes?.QueueArn;
    if (!queueArn) throw new Error(`The queue ${options.queueUrl} reported no QueueArn`);
    const region = await options.client.config.region();
    return new SqsEventSource(options, maxConcurrency, queueArn, region);
  }

  private readonly abort = new AbortController();
  private readonly poller: Promise<void>;
  /** Received messages not settled yet: being invoked, or waiting behind their group's previous one. */
  private unsettled = 0;
  private slotFreed?: () => void;
  private readonly groupRuns = new Set<Promise<void>>();
  /** Function invocations still running, including ones that outlived their timeout. */
  private readonly running = new Set<Promise<unknown>>();
  private readonly functionTimeoutMs: number;

  private constructor(
    private readonly options: SqsEventSourceOptions,
    private readonly maxConcurrency: number,
    private readonly queueArn: string,
    private readonly region: string,
  ) {
    this.functionTimeoutMs = (options.functionTimeoutSeconds ?? PIPELINE_DEFAULTS.orchestratorTimeoutSeconds) * 1000;
    this.poller = this.poll();
  }

  /** No received message is unsettled and no invocation is running. */
  get idle(): boolean {
    return this.unsettled === 0 && this.running.size === 0;
  }

  /** Stops polling, then waits for every received message to be settled and every invocation to end. */
  async stop(): Promise<void> {
    this.abort.abort();
    this.slotFreed?.();
    await this.poller;
    await Promise.allSettled([...this.groupRuns]);
    await Promise.allSettled([...this.running]);
  }

  private get stopping(): boolean {
    return this.abort.signal.aborted;
  }

  private async poll(): Promise<void> {
    while (!this.stopping) {
      const freeSlots = this.maxConcurrency - this.unsettled;
      if (freeSlots <= 0) {
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
        continue;
      }
      let messages: Message[];
      try {
        messages = await this.receive(Math.min(SQS_MAX_RECEIVE, freeSlots));
      } catch (error) {
        if (this.stopping) return;
        this.options.onPollError?.(error);
        await sleep(POLL_ERROR_BACKOFF_MS, undefined, { signal: this.abort.signal }).catch(() => undefined);
        continue;
      }
      // Received messages are in flight already: they are processed even if stop() came meanwhile.
      for (const groupMessages of byMessageGroup(messages)) this.runGroup(groupMessages);
    }
  }

  private async receive(maxMessages: number): Promise<Message[]> {
    const output = await this.options.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.options.queueUrl,
        MaxNumberOfMessages: maxMessages,
        WaitTimeSeconds: this.options.waitTimeSeconds ?? DEFAULT_WAIT_TIME_SECONDS,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: this.abort.signal },
    );
    return output.Messages ?? [];
  }

  /** One group's messages of a receive, in order; a failure leaves the rest to come back later. */
  private runGroup(messages: readonly Message[]): void {
    this.unsettled += messages.length;
    const run = (async () => {
      for (const [index, message] of messages.entries()) {
        if ((await this.invoke(this.toRecord(message))) !== 'deleted') {
          this.settle(messages.length - index);
          return;
        }
        this.settle(1);
      }
    })();
    this.groupRuns.add(run);
    const forget = () => this.groupRuns.delete(run);
    run.then(forget, forget);
  }

  private settle(count: number): void {
    this.unsettled -= count;
    this.slotFreed?.();
    this.slotFreed = undefined;
  }

  private async invoke(record: SQSRecord): Promise<InvocationOutcome> {
    const started = Date.now();
    const deadline = started + this.functionTimeoutMs;
    const context: LocalInvocationContext = {
      functionName: this.options.functionName ?? 'orchestrator',
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:${this.region}:000000000000:function:${this.options.functionName ?? 'orchestrator'}`,
      memoryLimitInMB: MEMORY_LIMIT_MB,
      awsRequestId: randomUUID(),
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    };

    const invocation = this.options.handler({ Records: [record] }, context);
    this.running.add(invocation);
    invocation.then(
      () => this.running.delete(invocation),
      () => this.running.delete(invocation),
    );

    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timed_out'>((resolve) => {
      timer = setTimeout(() => resolve('timed_out'), this.functionTimeoutMs);
    });
    let outcome: InvocationOutcome;
    let error: unknown;
    try {
      const result = await Promise.race([invocation, timeout]);
      if (result === 'timed_out') {
        outcome = 'timed_out';
        error = new Error(`Task timed out after ${this.functionTimeoutMs / 1000} seconds`);
      } else {
        const failed = (result?.batchItemFailures ?? []).some((failure) => failure.itemIdentifier === record.messageId);
        outcome = failed ? 'retained' : 'deleted';
      }
    } catch (thrown) {
      outcome = 'threw';
      error = thrown;
    } finally {
      clearTimeout(timer);
    }

    if (outcome === 'deleted') {
      try {
        await this.options.client.send(new DeleteMessageCommand({ QueueUrl: this.options.queueUrl, ReceiptHandle: record.receiptHandle }));
      } catch (deleteError) {
        // As on AWS: the record was processed, but it will be delivered again (e.g. its visibility
        // timeout expired during the invocation and another receive holds it now).
        error = deleteError;
      }
    }
    this.options.onInvocation?.({
      record,
      outcome,
      receiveCount: Number(record.attributes.ApproximateReceiveCount),
      durationMs: Date.now() - started,
      ...(error === undefined ? {} : { error }),
    });
    return outcome;
  }

  /** The record exactly as Lambda's SQS event source shapes it. */
  private toRecord(message: Message): SQSRecord {
    return {
      messageId: message.MessageId!,
      receiptHandle: message.ReceiptHandle!,
      body: message.Body ?? '',
      attributes: (message.Attributes ?? {}) as unknown as SQSRecordAttributes,
      messageAttributes: toRecordAttributes(message.MessageAttributes ?? {}),
      md5OfBody: message.MD5OfBody ?? '',
      ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
      eventSource: 'aws:sqs',
      eventSourceARN: this.queueArn,
      awsRegion: this.region,
    };
  }
}

/** Messages grouped by MessageGroupId, each group in receive order (which is the group's order). */
function byMessageGroup(messages: readonly Message[]): Message[][] {
  const groups = new Map<string, Message[]>();
  for (const message of messages) {
    const group = message.Attributes?.MessageGroupId ?? message.MessageId!;
    groups.set(group, [...(groups.get(group) ?? []), message]);
  }
  return [...groups.values()];
}

function toRecordAttributes(attributes: Record<string, MessageAttributeValue>): SQSMessageAttributes {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      {
        dataType: value.DataType ?? 'String',
        ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
        ...(value.BinaryValue === undefined ? {} : { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }),
        stringListValues: value.StringListValues ?? [],
        binaryListValues: (value.BinaryListValues ?? []).map((binary) => Buffer.from(binary).toString('base64')),
      },
    ]),
  );
}
