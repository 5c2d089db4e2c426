import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import type { InboundRef } from '../../lambda/core/domain/inbound-receipt';
import type { InboundReceiptRepository } from '../../lambda/core/ports/repositories';

const dynamodb = new DynamoDBClient({});
const sqs = new SQSClient({});

/** Every item of a test table (tests may scan; the pipeline never does). */
export async function allItems(tableName: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, any> | undefined;
  do {
    const page = await dynamodb.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: start, ConsistentRead: true }));
    items.push(...(page.Items ?? []).map((item) => unmarshall(item)));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Visible + in-flight + delayed messages of a queue. */
export async function queueDepth(queueUrl: string): Promise<number> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] }),
  );
  return Number(Attributes.ApproximateNumberOfMessages ?? 0) + Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0) + Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0);
}

/** Consumes every visible message in delivery order (FIFO hands out one message per group at a time). */
export async function takeAll(queueUrl: string): Promise<Message[]> {
  const received: Message[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, MessageSystemAttributeNames: ['All'] }),
    );
    if (Messages.length === 0) return received;
    for (const message of Messages) {
      received.push(message);
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
    }
  }
}

/** Waits for the next message on a queue (long polls until `timeoutMs`). */
export async function receiveOne(client: SQSClient, queueUrl: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { Messages: messages = [] } = await client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['All'] }),
    );
    if (messages.length > 0) return messages[0];
  }
  throw new Error(`No message on ${queueUrl} within ${timeoutMs} ms`);
}

/** Whether the turn that consumed the message finished (its receipt carries `completed_at`). */
export async function isCompleted(receipts: InboundReceiptRepository, ref: InboundRef): Promise<boolean> {
  return (await receipts.getReceipt(ref))?.completedAt !== undefined;
}
