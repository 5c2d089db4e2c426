import { randomBytes } from 'node:crypto';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDocuments } from '../lambda/core/adapters/dynamodb/dynamo-kit';
import { deduplicationIdFor, encodeDispatchMessage } from '../lambda/core/adapters/sqs/dispatch-message';
import { inboundReceiptKey, latestInboundKey, PK } from '../lambda/core/adapters/dynamodb/keys';
import { closedLoop, newCustomers, type Measurement } from './measurement';

export interface FloorTarget {
  readonly documents: DynamoDocuments;
  readonly sqs: SQSClient;
  readonly tableName: string;
  readonly queueUrl: string;
}

/**
 * The inbound path with no application code: per message, the same 2-item DynamoDB transaction the
 * webhook writes (receipt put-if-absent + latest-inbound update), a FIFO SendMessage with the same
 * body shape, group and deduplication id, then ReceiveMessage + DeleteMessage. Nothing is cheaper
 * and still does the work, so it bounds what the pipeline can reach on the same servers.
 */
export function measureFloor(target: FloorTarget, streams: number, perStream: number, maxMs: number): Promise<Measurement> {
  const customers = newCustomers(streams);
  return closedLoop(streams, perStream, maxMs, async (stream) => {
    const started = performance.now();
    const turn = { customerId: customers[stream], messageId: `wamid.${randomBytes(18).toString('base64url')}` };
    await target.documents.call('TransactWriteItems', {
      TransactItems: [
        {
          Put: {
            TableName: target.tableName,
            Item: { ...inboundReceiptKey(turn.customerId, turn.messageId), message_id: turn.messageId, registered_at: new Date().toISOString() },
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': PK },
          },
        },
        {
          Update: {
            TableName: target.tableName,
            Key: latestInboundKey(turn.customerId),
            UpdateExpression: 'SET latest_message_id = :id, pending_message_ids = list_append(if_not_exists(pending_message_ids, :empty), :ids)',
            ExpressionAttributeValues: { ':id': turn.messageId, ':ids': [turn.messageId], ':empty': [] },
          },
        },
      ],
    });
    await target.sqs.send(
      new SendMessageCommand({
        QueueUrl: target.queueUrl,
        MessageBody: encodeDispatchMessage(turn),
        MessageGroupId: turn.customerId,
        MessageDeduplicationId: deduplicationIdFor(turn.messageId),
      }),
    );
    // Any stream's message will do: the floor measures the queue's round trip, not who consumes it.
    const received = await target.sqs.send(new ReceiveMessageCommand({ QueueUrl: target.queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 5 }));
    for (const message of received.Messages ?? []) {
      await target.sqs.send(new DeleteMessageCommand({ QueueUrl: target.queueUrl, ReceiptHandle: message.ReceiptHandle }));
    }
    return performance.now() - started;
  });
}
