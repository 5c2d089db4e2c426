import { CreateTableCommand, DynamoDBClient, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { PIPELINE_DEFAULTS, TABLE_SCHEMA } from '../../lib/contract';

/** Creates the single table exactly as the construct defines it (keys, GSI1, TTL, on-demand). */
export async function createAgentTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const { partitionKey, sortKey, gsi1, timeToLiveAttribute } = TABLE_SCHEMA;
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [partitionKey, sortKey, gsi1.partitionKey, gsi1.sortKey].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: partitionKey, KeyType: 'HASH' },
        { AttributeName: sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: gsi1.indexName,
          KeySchema: [
            { AttributeName: gsi1.partitionKey, KeyType: 'HASH' },
            { AttributeName: gsi1.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
  await client.send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: timeToLiveAttribute, Enabled: true } }));
}

/** Queue settings a local pipeline may override (tests shorten the visibility timeout). */
export interface LocalQueueOptions {
  readonly visibilityTimeoutSeconds?: number;
  readonly maxReceiveCount?: number;
}

export interface LocalQueues {
  readonly turnQueueUrl: string;
  readonly deadLetterQueueUrl: string;
}

/** Creates the FIFO queue and its FIFO DLQ with the construct's settings and redrive policy. */
export async function createTurnQueues(client: SQSClient, names: { queue: string; deadLetterQueue: string }, options: LocalQueueOptions = {}): Promise<LocalQueues> {
  const dlq = await client.send(
    new CreateQueueCommand({
      QueueName: names.deadLetterQueue,
      Attributes: { FifoQueue: 'true', MessageRetentionPeriod: String(PIPELINE_DEFAULTS.deadLetterQueueRetentionSeconds) },
    }),
  );
  const dlqAttributes = await client.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }));
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: names.queue,
      Attributes: {
        FifoQueue: 'true',
        ContentBasedDeduplication: 'false',
        DelaySeconds: String(PIPELINE_DEFAULTS.queueDeliveryDelaySeconds),
        VisibilityTimeout: String(options.visibilityTimeoutSeconds ?? PIPELINE_DEFAULTS.queueVisibilityTimeoutSeconds),
        MessageRetentionPeriod: String(PIPELINE_DEFAULTS.queueRetentionSeconds),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlqAttributes.Attributes!.QueueArn,
          maxReceiveCount: options.maxReceiveCount ?? PIPELINE_DEFAULTS.maxReceiveCount,
        }),
      },
    }),
  );
  return { turnQueueUrl: queue.QueueUrl!, deadLetterQueueUrl: dlq.QueueUrl! };
}

/**
 * Creates the media bucket on the local S3 server (the SQS emulator serves S3 on its port); a bucket
 * left by an earlier run is kept with its objects. The server takes unsigned requests.
 */
export async function createMediaBucket(s3Endpoint: string, bucketName: string): Promise<void> {
  const response = await fetch(`${s3Endpoint.replace(/\/$/, '')}/${encodeURIComponent(bucketName)}`, { method: 'PUT' });
  const body = await response.text();
  if (!response.ok && !body.includes('BucketAlreadyOwnedByYou')) throw new Error(`The local S3 server refused to create the media bucket ${bucketName}: ${response.status} ${body}`);
}
