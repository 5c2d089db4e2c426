// The permission check's request → IAM mapping, on hand-written requests: what AWS authorises
// for each DynamoDB, SQS, Secrets Manager and S3 operation the pipeline calls.
import { LOCAL_SECRET_ARNS } from '../../local/runtime/local-plan';
import type { DeploymentPermissions } from '../support/permissions/deployment-permissions';
import { dynamoDbIamRequests, s3Call, s3IamRequests, secretsManagerIamRequests, sqsIamRequests } from '../support/permissions/iam-requests';

const KEY = 'arn:aws:kms:us-east-1:123456789012:key/DataKey';
const TABLE = 'arn:aws:dynamodb:us-east-1:123456789012:table/agent-conformance';
const keyPolicy = { Statement: [{ Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::123456789012:root' }, Action: 'kms:*', Resource: '*' }] };
const queuePolicy = { Statement: [{ Effect: 'Deny', Principal: { AWS: '*' }, Action: 'sqs:*', Resource: '*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }] };
const bucketPolicy = { Statement: [{ Effect: 'Deny', Principal: { AWS: '*' }, Action: 's3:*', Resource: ['arn:aws:s3:::pipelinemediabucket', 'arn:aws:s3:::pipelinemediabucket/*'], Condition: { Bool: { 'aws:SecureTransport': 'false' } } }] };
const deployment: DeploymentPermissions = {
  variant: 'cloud-api-noplane-crm-off',
  account: '123456789012',
  region: 'us-east-1',
  roles: new Map(),
  table: { arn: TABLE, keyArn: KEY },
  queues: {
    turn: { arn: 'arn:aws:sqs:us-east-1:123456789012:agent-debounce-conformance.fifo', keyArn: KEY, policy: queuePolicy },
    deadLetter: { arn: 'arn:aws:sqs:us-east-1:123456789012:agent-debounce-dlq-conformance.fifo', keyArn: KEY, policy: queuePolicy },
  },
  secrets: { whatsApp: { arn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:WhatsAppSecret-AbCdEf', keyArn: KEY } },
  mediaBucket: { arn: 'arn:aws:s3:::pipelinemediabucket', keyArn: KEY, policy: bucketPolicy },
  keyPolicies: new Map([[KEY, keyPolicy]]),
};
const S = (value: string) => ({ S: value });
const viaDynamoDb = { action: 'kms:Decrypt', resource: KEY, context: { 'kms:ViaService': 'dynamodb.us-east-1.amazonaws.com' }, resourcePolicy: keyPolicy };
const actions = (requests: { action: string; resource: string; context: object }[]) => requests.map(({ action, resource, context }) => ({ action, resource, context }));

describe('DynamoDB', () => {
  test('an item action is that action on the table with its partition key as dynamodb:LeadingKeys, and DynamoDB’s Decrypt of the table key', () => {
    expect(dynamoDbIamRequests('GetItem', { TableName: 'local-table', Key: { PK: S('SESSION#5511'), SK: S('ACTIVE') } }, deployment)).toEqual([
      { action: 'dynamodb:GetItem', resource: TABLE, context: { 'dynamodb:LeadingKeys': ['SESSION#5511'] } },
      viaDynamoDb,
    ]);
    expect(actions(dynamoDbIamRequests('PutItem', { Item: { PK: S('DEBOUNCE#5511'), SK: S('INBOUND#x'), text: S('oi') } }, deployment))[0]).toEqual({
      action: 'dynamodb:PutItem',
      resource: TABLE,
      context: { 'dynamodb:LeadingKeys': ['DEBOUNCE#5511'] },
    });
  });

  test('a Query is authorised on the table or on the index, with the partition value of its key condition', () => {
    const onIndex = dynamoDbIamRequests(
      'Query',
      { IndexName: 'GSI1', KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)', ExpressionAttributeNames: { '#pk': 'GSI1PK', '#sk': 'GSI1SK' }, ExpressionAttributeValues: { ':pk': S('STATE#AWAITING_HUMAN'), ':prefix': S('2026') } },
      deployment,
    );
    expect(onIndex[0]).toEqual({ action: 'dynamodb:Query', resource: `${TABLE}/index/GSI1`, context: { 'dynamodb:LeadingKeys': ['STATE#AWAITING_HUMAN'] } });
    const onTable = dynamoDbIamRequests('Query', { KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': S('SESSION#5511') } }, deployment);
    expect(onTable[0]).toEqual({ action: 'dynamodb:Query', resource: TABLE, context: { 'dynamodb:LeadingKeys': ['SESSION#5511'] } });
  });

  test('a batch is its own action with every partition key of the batch', () => {
    const write = dynamoDbIamRequests(
      'BatchWriteItem',
      { RequestItems: { t: [{ DeleteRequest: { Key: { PK: S('SESSION#1'), SK: S('a') } } }, { PutRequest: { Item: { PK: S('CRM_SYNC#s'), SK: S('b') } } }, { DeleteRequest: { Key: { PK: S('SESSION#1'), SK: S('c') } } }] } },
      deployment,
    );
    expect(actions(write)).toEqual([{ action: 'dynamodb:BatchWriteItem', resource: TABLE, context: { 'dynamodb:LeadingKeys': ['SESSION#1', 'CRM_SYNC#s'] } }, actions([viaDynamoDb])[0]]);
    const read = dynamoDbIamRequests('BatchGetItem', { RequestItems: { t: { Keys: [{ PK: S('BUDGET#1'), SK: S('x') }] } } }, deployment);
    expect(read[0]).toEqual({ action: 'dynamodb:BatchGetItem', resource: TABLE, context: { 'dynamodb:LeadingKeys': ['BUDGET#1'] } });
  });

  test('a transaction is authorised per action (there is no TransactWriteItems action in IAM), a TransactGetItems as GetItem each', () => {
    const write = dynamoDbIamRequests(
      'TransactWriteItems',
      {
        TransactItems: [
          { Put: { TableName: 't', Item: { PK: S('DEBOUNCE#1'), SK: S('INBOUND#m') } } },
          { Update: { TableName: 't', Key: { PK: S('DEBOUNCE#1'), SK: S('LATEST_INBOUND') } } },
          { ConditionCheck: { TableName: 't', Key: { PK: S('SESSION#1'), SK: S('ACTIVE') } } },
          { Delete: { TableName: 't', Key: { PK: S('SESSION#1'), SK: S('x') } } },
        ],
      },
      deployment,
    );
    expect(write.map(({ action, context }) => [action, context['dynamodb:LeadingKeys']])).toEqual([
      ['dynamodb:PutItem', ['DEBOUNCE#1']],
      ['dynamodb:UpdateItem', ['DEBOUNCE#1']],
      ['dynamodb:ConditionCheckItem', ['SESSION#1']],
      ['dynamodb:DeleteItem', ['SESSION#1']],
      ['kms:Decrypt', undefined],
    ]);
    const read = dynamoDbIamRequests('TransactGetItems', { TransactItems: [{ Get: { Key: { PK: S('SESSION#2'), SK: S('a') } } }] }, deployment);
    expect(read.map(({ action }) => action)).toEqual(['dynamodb:GetItem', 'kms:Decrypt']);
  });
});

describe('SQS', () => {
  test('a send names the deployed queue the local one stands for, over TLS, with the queue policy, and the data key SQS asks for', () => {
    expect(sqsIamRequests('SendMessageBatch', { QueueUrl: 'http://127.0.0.1:9324/000000000000/gogenetic-agent-debounce-e2e1234.fifo' }, deployment)).toEqual([
      { action: 'sqs:SendMessage', resource: deployment.queues.turn.arn, context: { 'aws:SecureTransport': 'true' }, resourcePolicy: queuePolicy },
      { action: 'kms:GenerateDataKey', resource: KEY, context: { 'kms:ViaService': 'sqs.us-east-1.amazonaws.com' }, resourcePolicy: keyPolicy },
      { action: 'kms:Decrypt', resource: KEY, context: { 'kms:ViaService': 'sqs.us-east-1.amazonaws.com' }, resourcePolicy: keyPolicy },
    ]);
  });

  test('a receive on the dead-letter queue adds Decrypt; a delete no key call; a queue of no pipeline keeps its own name', () => {
    const dlq = 'http://127.0.0.1:9324/000000000000/redrive-debounce-dlq-abcd1234.fifo';
    expect(sqsIamRequests('ReceiveMessage', { QueueUrl: dlq }, deployment).map(({ action, resource }) => [action, resource])).toEqual([
      ['sqs:ReceiveMessage', deployment.queues.deadLetter.arn],
      ['kms:Decrypt', KEY],
    ]);
    expect(sqsIamRequests('DeleteMessageBatch', { QueueUrl: dlq }, deployment).map(({ action }) => action)).toEqual(['sqs:DeleteMessage']);
    expect(sqsIamRequests('GetQueueAttributes', { QueueUrl: 'http://127.0.0.1:9324/000000000000/other-queue' }, deployment)[0].resource).toBe('arn:aws:sqs:us-east-1:123456789012:other-queue');
  });
});

test('Secrets Manager: the local WhatsApp secret stands for the deployed one, with the Decrypt Secrets Manager asks for', () => {
  expect(secretsManagerIamRequests('GetSecretValue', { SecretId: LOCAL_SECRET_ARNS.whatsApp }, deployment)).toEqual([
    { action: 'secretsmanager:GetSecretValue', resource: deployment.secrets.whatsApp!.arn, context: {} },
    { action: 'kms:Decrypt', resource: KEY, context: { 'kms:ViaService': 'secretsmanager.us-east-1.amazonaws.com' }, resourcePolicy: keyPolicy },
  ]);
});

describe('S3', () => {
  const BUCKET = 'arn:aws:s3:::pipelinemediabucket';
  const LOCAL = '/gogenetic-agent-e2e1-media';
  const tls = { 'aws:SecureTransport': 'true' };
  const viaS3 = (action: string) => ({ action, resource: KEY, context: { 'kms:ViaService': 's3.us-east-1.amazonaws.com' }, resourcePolicy: keyPolicy });
  const requestsOf = (method: string, path: string, body = '') => {
    const call = s3Call(method, path, body);
    return s3IamRequests(call.operation, call.body, deployment);
  };

  test('an object’s PUT, GET (a presigned link’s too) and DELETE are those actions on bucket/key, the key unescaped, over TLS with the bucket policy', () => {
    expect(requestsOf('PUT', `${LOCAL}/media/p%2Bq/wamid.HBgM%2Bab%3D`)).toEqual([
      { action: 's3:PutObject', resource: `${BUCKET}/media/p+q/wamid.HBgM+ab=`, context: tls, resourcePolicy: bucketPolicy },
      viaS3('kms:GenerateDataKey'),
    ]);
    expect(requestsOf('GET', `${LOCAL}/media/p/x?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=300`)).toEqual([
      { action: 's3:GetObject', resource: `${BUCKET}/media/p/x`, context: tls, resourcePolicy: bucketPolicy },
      viaS3('kms:Decrypt'),
    ]);
    expect(actions(requestsOf('DELETE', `${LOCAL}/media/p/x`))).toEqual([{ action: 's3:DeleteObject', resource: `${BUCKET}/media/p/x`, context: tls }]);
  });

  test('a listing is s3:ListBucket on the bucket with s3:prefix (none when it names none)', () => {
    expect(s3Call('GET', `${LOCAL}?list-type=2&prefix=media%2Fp%2F&continuation-token=t`)).toEqual({ operation: 'ListBucket', body: { bucket: 'gogenetic-agent-e2e1-media', prefix: 'media/p/' } });
    expect(actions(requestsOf('GET', `${LOCAL}?list-type=2&prefix=media%2Fp%2F`))).toEqual([{ action: 's3:ListBucket', resource: BUCKET, context: { ...tls, 's3:prefix': 'media/p/' } }]);
    expect(actions(requestsOf('GET', `${LOCAL}?list-type=2`))).toEqual([{ action: 's3:ListBucket', resource: BUCKET, context: tls }]);
  });

  test('DeleteObjects (POST ?delete) is s3:DeleteObject on each key of its body; no key call', () => {
    const body = '<Delete><Quiet>true</Quiet><Object><Key>media/p/a&amp;b</Key></Object><Object><Key>media/p/c</Key></Object></Delete>';
    expect(actions(requestsOf('POST', `${LOCAL}?delete=`, body))).toEqual([
      { action: 's3:DeleteObject', resource: `${BUCKET}/media/p/a&b`, context: tls },
      { action: 's3:DeleteObject', resource: `${BUCKET}/media/p/c`, context: tls },
    ]);
  });

  test('a bucket of no pipeline keeps its own name; a request on the bucket itself is named by its method', () => {
    expect(requestsOf('GET', '/media-adapter-1234/media/p/x')[0].resource).toBe('arn:aws:s3:::media-adapter-1234/media/p/x');
    expect(requestsOf('GET', '/media-adapter-1234/media/p/x')).toHaveLength(1);
    expect(actions(requestsOf('PUT', LOCAL))).toEqual([{ action: 's3:CreateBucket', resource: BUCKET, context: tls }]);
  });
});
