import { DescribeTableCommand, DescribeTimeToLiveCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { physicalNames, PIPELINE_DEFAULTS, TABLE_SCHEMA } from '../../lib/contract';
import { assertPortFree, LocalServerError } from '../../local/servers/local-servers';
import { createAgentTable, createTurnQueues } from '../../local/servers/local-resources';

const names = physicalNames('servers-test', `t${Date.now()}`);

test('the local table matches the construct contract', async () => {
  const client = new DynamoDBClient({});
  await createAgentTable(client, names.table);
  const { Table } = await client.send(new DescribeTableCommand({ TableName: names.table }));
  expect(Table?.KeySchema).toEqual([
    { AttributeName: TABLE_SCHEMA.partitionKey, KeyType: 'HASH' },
    { AttributeName: TABLE_SCHEMA.sortKey, KeyType: 'RANGE' },
  ]);
  expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName)).toEqual([TABLE_SCHEMA.gsi1.indexName]);
  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: names.table }));
  expect(ttl.TimeToLiveDescription?.AttributeName).toBe(TABLE_SCHEMA.timeToLiveAttribute);
});

test('the local queues carry the construct settings and redrive', async () => {
  const client = new SQSClient({});
  const { turnQueueUrl: queueUrl } = await createTurnQueues(client, names);
  const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }));
  expect(Attributes?.FifoQueue).toBe('true');
  expect(Attributes?.VisibilityTimeout).toBe(String(PIPELINE_DEFAULTS.queueVisibilityTimeoutSeconds));
  expect(JSON.parse(Attributes!.RedrivePolicy!).maxReceiveCount).toBe(PIPELINE_DEFAULTS.maxReceiveCount);
});

test('a taken port is reported with a clear error', async () => {
  const port = Number(new URL(process.env.AWS_ENDPOINT_URL_SQS!).port);
  await expect(assertPortFree(port)).rejects.toThrow(LocalServerError);
  await expect(assertPortFree(port)).rejects.toThrow(/already in use/);
});
